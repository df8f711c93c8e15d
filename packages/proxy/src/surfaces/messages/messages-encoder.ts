import { type RawResponse, rawResponse } from "@conduit-ai/server-core";
import { replyToRouteResult } from "../../relay/proxy-reply.js";
import type { TargetAnswer } from "../../targets/target.js";
import type { MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";
import { EVENT_STREAM_HEADERS, jsonEventFrame } from "../event-stream.js";

/** Messages events as the Messages API's SSE: `event: <type>` and its JSON, one string per batch. */
async function* messagesFrames(events: AsyncIterable<MessagesStreamEvent[]>): AsyncGenerator<string> {
  for await (const batch of events) {
    let frames = "";
    for (const event of batch) frames += jsonEventFrame(event, event.type);
    if (frames !== "") yield frames;
  }
}

/**
 * A target's answer on `/v1/messages`: a passthrough as upstream sent it, a `message` as its
 * JSON, events as the Messages API's event stream.
 *
 * @example
 * return { response: messagesResponseOf(answer), servedBy: answer.servedBy };
 */
export function messagesResponseOf(answer: TargetAnswer): RawResponse {
  switch (answer.kind) {
    case "passthrough":
      return replyToRouteResult(answer.reply);
    case "message":
      return rawResponse(JSON.stringify(answer.message), { headers: { "content-type": "application/json" } });
    case "events":
      return rawResponse(messagesFrames(answer.events), { headers: EVENT_STREAM_HEADERS });
  }
}
