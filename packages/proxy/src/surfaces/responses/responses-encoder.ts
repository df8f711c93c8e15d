import { type RawResponse, rawResponse } from "@conduit-ai/server-core";
import { replyToRouteResult } from "../../relay/proxy-reply.js";
import type { TargetAnswer } from "../../targets/target.js";
import type { MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";
import type { ClientToolNames } from "../../wire/openai-responses/client-tool-names.js";
import { fromMessages } from "../../wire/openai-responses/from-messages.js";
import type { ResponseObject } from "../../wire/openai-responses/response-object.js";
import { type ResponsesEvent, ResponsesStreamTranslator } from "../../wire/openai-responses/stream-translator.js";
import { EVENT_STREAM_HEADERS } from "../event-stream.js";
import { ResponsesSse } from "./responses-sse.js";

/** How a Response is told: its envelope, the client's tool names, and what to do with it once complete. */
export interface ResponsesAnswerOptions {
  shell: ResponseObject;
  toolNames: ClientToolNames;
  /** Called with the final response (stored for `previous_response_id` when the request asks). */
  onComplete: (response: ResponseObject) => Promise<void>;
}

/**
 * Messages events as Responses events, numbered and framed one string per batch. A stream that
 * ended in `error` ends with the Responses `error` event and is not stored; leaving early (the
 * client gone) returns the events, which cancels upstream.
 */
async function* responsesFrames(
  events: AsyncIterable<MessagesStreamEvent[]>,
  translator: ResponsesStreamTranslator,
  onComplete: (response: ResponseObject) => Promise<void>,
): AsyncGenerator<string> {
  const sse = new ResponsesSse();
  for await (const batch of events) {
    const out: ResponsesEvent[] = [];
    for (const event of batch) out.push(...translator.translate(event.type, event));
    if (out.length > 0) yield sse.frame(out);
    if (translator.finished) break;
  }
  const final = translator.current;
  if (final.status !== "in_progress") await onComplete(final);
}

/**
 * A target's answer on `/v1/responses`: a passthrough as upstream sent it, a `message` as a
 * Response object, events as the Responses stream (`ResponsesStreamTranslator`, the same for
 * every target).
 *
 * @example
 * return { response: await responsesResponseOf(answer, { shell, toolNames, onComplete }), servedBy: answer.servedBy };
 */
export async function responsesResponseOf(answer: TargetAnswer, options: ResponsesAnswerOptions): Promise<RawResponse> {
  switch (answer.kind) {
    case "passthrough":
      return replyToRouteResult(answer.reply);
    case "message": {
      const response = fromMessages(answer.message, options.shell, options.toolNames);
      await options.onComplete(response);
      return rawResponse(JSON.stringify(response), { headers: { "content-type": "application/json" } });
    }
    case "events": {
      const translator = new ResponsesStreamTranslator(options.shell, options.toolNames);
      return rawResponse(responsesFrames(answer.events, translator, options.onComplete), { headers: EVENT_STREAM_HEADERS });
    }
  }
}
