import { type TraceSpan, rawResponse } from "@conduit-ai/server-core";
import { type EventSourceMessage, createParser } from "eventsource-parser";
import { boundedText } from "./bounded-text.js";
import { EVENT_STREAM_HEADERS } from "../../surfaces/event-stream.js";
import { OpenAIWireError, fromVendorError } from "../../wire/openai-chat/openai-wire-error.js";
import type { SendMessages } from "./send-messages.js";
import { fromMessages } from "../../wire/openai-responses/from-messages.js";
import type { ResponseObject } from "../../wire/openai-responses/response-object.js";
import { ResponsesSse } from "../../surfaces/responses/responses-sse.js";
import type { ResponsesEvent } from "../../wire/openai-responses/stream-translator.js";
import { ResponsesStreamTranslator } from "../../wire/openai-responses/stream-translator.js";
import type { Translation } from "../../wire/openai-responses/to-messages.js";

export interface ClaudeResponseOptions {
  shell: ResponseObject;
  signal: AbortSignal;
  traceSpan?: TraceSpan;
  extraHeaders: Record<string, string>;
  /** Called with the final response (stored for `previous_response_id` when the request asks). */
  onComplete: (response: ResponseObject) => Promise<void>;
  /** How the relayed answer ended, with its usage (the gate settles with it). */
  onAnswered?: Parameters<SendMessages>[1]["onAnswered"];
}

/**
 * A Claude model's Response: the translated request sent through the pool (`sendMessages`, so
 * failover and accounting are the Messages surface's), the answer translated back, JSON or SSE.
 */
export async function respondWithClaude(sendMessages: SendMessages, translation: Translation, options: ClaudeResponseOptions) {
  const body = new TextEncoder().encode(JSON.stringify(translation.request));
  const headers = { ...options.extraHeaders, "content-type": "application/json", "anthropic-version": "2023-06-01" };
  let upstream: Response;
  try {
    upstream = await sendMessages(body, {
      headers,
      signal: options.signal,
      ...(options.onAnswered ? { onAnswered: options.onAnswered } : {}),
      ...(options.traceSpan ? { traceSpan: options.traceSpan } : {}),
    });
  } catch {
    throw new OpenAIWireError(502, "The upstream Messages API could not be reached", "server_error", null, "upstream_unavailable");
  }
  if (!upstream.ok) throw fromVendorError(upstream.status, await boundedText(upstream), upstream.headers);
  if (!translation.request.stream) {
    let message: unknown;
    try {
      message = await upstream.json();
    } catch {
      throw new OpenAIWireError(502, "The upstream sent a malformed response", "server_error", null, "upstream_protocol_error");
    }
    const response = fromMessages(message as never, options.shell, translation.toolNames);
    await options.onComplete(response);
    return rawResponse(JSON.stringify(response), { headers: { "content-type": "application/json" } });
  }
  if (!upstream.body || !(upstream.headers.get("content-type") ?? "").includes("text/event-stream")) {
    await upstream.body?.cancel().catch(() => undefined);
    throw new OpenAIWireError(
      502,
      "The upstream answered a streaming request without a stream",
      "server_error",
      null,
      "upstream_protocol_error",
    );
  }
  const translator = new ResponsesStreamTranslator(options.shell, translation.toolNames);
  return rawResponse(streamResponses(upstream.body, translator, options.onComplete), { headers: EVENT_STREAM_HEADERS });
}

/**
 * The Messages SSE body as Responses events. An upstream error, a malformed event or a body that
 * ends before `message_stop` ends the stream with an `error` event, so the client never hangs;
 * returning early (client gone) cancels the upstream body.
 */
async function* streamResponses(
  upstream: ReadableStream<Uint8Array>,
  translator: ResponsesStreamTranslator,
  onComplete: (response: ResponseObject) => Promise<void>,
): AsyncGenerator<string> {
  const sse = new ResponsesSse();
  let pending: ResponsesEvent[] = [];
  let malformed = false;
  const parser = createParser({
    onEvent(event: EventSourceMessage) {
      try {
        const data = JSON.parse(event.data) as { type?: string };
        pending.push(...translator.translate(event.event ?? data.type ?? "", data as never));
      } catch {
        malformed = true;
      }
    },
  });
  const reader = upstream.getReader();
  const decoder = new TextDecoder();
  try {
    while (!translator.finished) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch {
        yield sse.frame([
          ...translator.start(),
          translator.failure("upstream_stream_error", "The upstream stream failed before it finished"),
        ]);
        return;
      }
      if (next.done) {
        yield sse.frame([
          ...translator.start(),
          translator.failure("upstream_stream_error", "The upstream stream ended before the response finished"),
        ]);
        return;
      }
      parser.feed(decoder.decode(next.value, { stream: true }));
      const batch = pending;
      pending = [];
      if (malformed) batch.push(translator.failure("upstream_stream_error", "The upstream sent a malformed stream event"));
      if (batch.length > 0) yield sse.frame(batch);
    }
    const final = translator.current;
    if (final.status !== "in_progress") await onComplete(final);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
