import { formatSseFrame } from "@conduit-ai/server-core/web";
import { type EventSourceMessage, createParser } from "eventsource-parser";
import { jsonEventFrame } from "../event-stream.js";
import { ChunkTranslator, type TranslatedEvent } from "../../wire/openai-chat/chunk-translator.js";
import type { OpenAIErrorBody } from "../../wire/openai-chat/openai-wire-error.js";

/** One SSE frame of the chat completions stream: a `data:` line of JSON, no event name. */
export function sseData(value: unknown): string {
  return jsonEventFrame(value);
}

/** The chat completions stream's last frame. */
export const SSE_DONE = formatSseFrame({ data: "[DONE]" });

export function streamError(message: string, type = "server_error", code: string | null = null): OpenAIErrorBody {
  return { error: { message, type, param: null, code } };
}

/**
 * A Messages API SSE body as a Chat Completions SSE stream. Ends with `data: [DONE]` after the
 * finish (and usage) chunks; an upstream error event, a broken body or a body that stops before
 * `message_stop` ends the stream with an error event instead, so the client never hangs.
 * Returning early (client gone) cancels the upstream body.
 */
export async function* translateMessagesStream(
  upstream: ReadableStream<Uint8Array>,
  meta: { id: string; created: number; model: string; includeUsage: boolean },
): AsyncGenerator<string> {
  const translator = new ChunkTranslator(meta);
  let pending: TranslatedEvent[] = [];
  let malformed = false;
  const parser = createParser({
    onEvent(event: EventSourceMessage) {
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        malformed = true;
        return;
      }
      const name = event.event ?? (data as { type?: string }).type ?? "";
      pending.push(...translator.translate(name, data as never));
    },
  });
  const reader = upstream.getReader();
  const decoder = new TextDecoder();
  try {
    while (true) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch {
        yield sseData(streamError("The upstream stream failed before it finished", "server_error", "upstream_stream_error"));
        return;
      }
      if (next.done) break;
      parser.feed(decoder.decode(next.value, { stream: true }));
      const batch = pending;
      pending = [];
      let frames = "";
      for (const item of batch) {
        if (item.type === "json") frames += formatSseFrame({ data: item.json });
        else if (item.type === "chunk") frames += sseData(item.chunk);
        else if (item.type === "error") frames += sseData(item.error);
        else frames += SSE_DONE;
      }
      if (frames !== "") yield frames;
      if (malformed) {
        yield sseData(streamError("The upstream sent a malformed stream event", "server_error", "upstream_stream_error"));
        return;
      }
      if (translator.finished) return;
    }
    yield sseData(streamError("The upstream stream ended before the message finished", "server_error", "upstream_stream_error"));
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
