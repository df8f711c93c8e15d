import { type RawResponse, rawResponse } from "@conduit-ai/server-core";
import { formatSseFrame } from "@conduit-ai/server-core/web";
import { replyToRouteResult } from "../../relay/proxy-reply.js";
import type { TargetAnswer } from "../../targets/target.js";
import type { MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";
import { ChunkTranslator, type TranslatedEvent } from "../../wire/openai-chat/chunk-translator.js";
import { fromMessagesResponse } from "../../wire/openai-chat/from-messages-response.js";
import { EVENT_STREAM_HEADERS, jsonEventFrame } from "../event-stream.js";

/** The chat completions stream's last frame. */
export const SSE_DONE = formatSseFrame({ data: "[DONE]" });

/** One translated item as its `data:` frame (no event name: OpenAI's chat stream has none). */
function frameOf(item: TranslatedEvent): string {
  switch (item.type) {
    case "json":
      return formatSseFrame({ data: item.json });
    case "chunk":
      return jsonEventFrame(item.chunk);
    case "error":
      return jsonEventFrame(item.error);
    case "done":
      return SSE_DONE;
  }
}

/**
 * Messages events as `chat.completion.chunk` frames, one string per batch, ending with
 * `data: [DONE]` after the finish (and usage) chunks — or with an error frame when the stream
 * ended in `error`. Leaving early (the client gone) returns the events, which cancels upstream.
 */
async function* chatFrames(events: AsyncIterable<MessagesStreamEvent[]>, translator: ChunkTranslator): AsyncGenerator<string> {
  for await (const batch of events) {
    let frames = "";
    for (const event of batch) for (const item of translator.translate(event.type, event)) frames += frameOf(item);
    if (frames !== "") yield frames;
    if (translator.finished) return;
  }
}

/** What a chat completion names itself by; `includeUsage` adds the usage chunk to a stream. */
export interface ChatAnswerMeta {
  id: string;
  created: number;
  /** The model named unless upstream names the one that served. */
  model: string;
  includeUsage: boolean;
}

/**
 * A target's answer on `/v1/chat/completions`: a passthrough as upstream sent it, a `message` as
 * a `chat.completion`, events as the chunk stream (`ChunkTranslator`, the same for every target).
 *
 * @example
 * return { response: chatResponseOf(answer, { id, created, model: route.model, includeUsage }), servedBy: answer.servedBy };
 */
export function chatResponseOf(answer: TargetAnswer, meta: ChatAnswerMeta): RawResponse {
  switch (answer.kind) {
    case "passthrough":
      return replyToRouteResult(answer.reply);
    case "message":
      return rawResponse(JSON.stringify(fromMessagesResponse(answer.message, meta)), { headers: { "content-type": "application/json" } });
    case "events":
      return rawResponse(chatFrames(answer.events, new ChunkTranslator(meta)), { headers: EVENT_STREAM_HEADERS });
  }
}
