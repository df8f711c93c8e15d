import { ServerAdapterError, type TraceSpan, rawResponse } from "@conduit-ai/server-core";
import { EVENT_STREAM_HEADERS } from "../../surfaces/event-stream.js";
import { boundedText } from "./bounded-text.js";
import type { ChatRequest } from "../../wire/openai-chat/chat-request-schema.js";
import { translateMessagesStream } from "../../surfaces/chat-completions/chat-stream.js";
import { fromMessagesResponse } from "../../wire/openai-chat/from-messages-response.js";
import { OpenAIWireError, fromVendorError } from "../../wire/openai-chat/openai-wire-error.js";
import type { SendMessages } from "./send-messages.js";
import { toMessagesRequest } from "../../wire/openai-chat/to-messages-request.js";

function sendFailure(error: unknown): OpenAIWireError {
  if (ServerAdapterError.isInstance(error)) {
    return new OpenAIWireError(
      error.statusCode,
      error.message,
      error.statusCode >= 500 ? "server_error" : "invalid_request_error",
      null,
      error.code,
    );
  }
  return new OpenAIWireError(502, "The upstream Messages API could not be reached", "server_error", null, "upstream_unavailable");
}

/**
 * A Claude model's completion: the request translated to the Messages API, sent through the
 * pool, and the answer (JSON or SSE) translated back. Upstream errors keep their status.
 */
export async function completeWithClaude(
  sendMessages: SendMessages,
  request: ChatRequest,
  options: {
    defaultMaxTokens: number;
    dropParams?: boolean;
    signal: AbortSignal;
    traceSpan?: TraceSpan;
    id: string;
    created: number;
    extraHeaders?: Record<string, string>;
    onAnswered?: Parameters<SendMessages>[1]["onAnswered"];
  },
) {
  const translated = toMessagesRequest(request, { defaultMaxTokens: options.defaultMaxTokens, dropParams: options.dropParams ?? false });
  const body = new TextEncoder().encode(JSON.stringify(translated));
  const headers: Record<string, string> = {
    ...options.extraHeaders,
    "content-type": "application/json",
    "anthropic-version": "2023-06-01",
  };
  let upstream: Response;
  try {
    upstream = await sendMessages(body, {
      headers,
      signal: options.signal,
      ...(options.onAnswered ? { onAnswered: options.onAnswered } : {}),
      ...(options.traceSpan ? { traceSpan: options.traceSpan } : {}),
    });
  } catch (error) {
    throw sendFailure(error);
  }
  if (!upstream.ok) throw fromVendorError(upstream.status, await boundedText(upstream), upstream.headers);
  const meta = { id: options.id, created: options.created, model: request.model };
  const isEventStream = (upstream.headers.get("content-type") ?? "").includes("text/event-stream");
  if (request.stream) {
    if (!isEventStream || !upstream.body) {
      await upstream.body?.cancel().catch(() => undefined);
      throw new OpenAIWireError(
        502,
        "The upstream answered a streaming request without a stream",
        "server_error",
        null,
        "upstream_protocol_error",
      );
    }
    const includeUsage = request.stream_options?.include_usage === true;
    return rawResponse(translateMessagesStream(upstream.body, { ...meta, includeUsage }), { headers: EVENT_STREAM_HEADERS });
  }
  let message: unknown;
  try {
    message = await upstream.json();
  } catch {
    throw new OpenAIWireError(502, "The upstream sent a malformed response", "server_error", null, "upstream_protocol_error");
  }
  return rawResponse(JSON.stringify(fromMessagesResponse(message as never, meta)), { headers: { "content-type": "application/json" } });
}
