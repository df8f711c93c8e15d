import { type EventSourceMessage, createParser } from "eventsource-parser";
import type { MessagesStreamEvent } from "./messages-answer.js";

/** The error event a broken stream ends with (`upstream_stream_error`: the upstream failed, not the client). */
export function streamBroken(message: string): MessagesStreamEvent {
  return { type: "error", error: { type: "upstream_stream_error", message } };
}

/** One SSE message as a stream event; undefined when its data is not a JSON object. */
function eventOf(message: EventSourceMessage): MessagesStreamEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const event = data as { type?: unknown };
  // The SSE event name wins, as the Messages API sends both and names them alike.
  const type = message.event ?? event.type;
  if (typeof type !== "string") return undefined;
  return (event.type === type ? event : { ...event, type }) as MessagesStreamEvent;
}

/**
 * A Messages API event stream (SSE bytes) decoded into its events, once, in batches: one batch
 * per chunk read, so a consumer takes one async step per read, not per event. It ends after
 * `message_stop` or an `error` event. A malformed event, a read failure or a body that ends before
 * `message_stop` end it with an `error` event (`upstream_stream_error`), so a client never hangs.
 * However it ends — finished, broken, or returned early by its consumer (the client left) — the
 * body is returned, which cancels the upstream request when it was still running.
 *
 * @example
 * for await (const batch of decodeMessagesStream(reply.body)) for (const event of batch) encode(event);
 */
export async function* decodeMessagesStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<MessagesStreamEvent[]> {
  let pending: MessagesStreamEvent[] = [];
  let malformed = false;
  let ended = false;
  const parser = createParser({
    onEvent(message) {
      if (ended || malformed) return;
      const event = eventOf(message);
      if (event === undefined) {
        malformed = true;
        return;
      }
      pending.push(event);
      if (event.type === "message_stop" || event.type === "error") ended = true;
    },
  });
  const decoder = new TextDecoder();
  const chunks = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await chunks.next();
      } catch {
        yield [streamBroken("The upstream stream failed before it finished")];
        return;
      }
      if (next.done) break;
      parser.feed(decoder.decode(next.value, { stream: true }));
      const batch = pending;
      pending = [];
      if (malformed) {
        batch.push(streamBroken("The upstream sent a malformed stream event"));
        yield batch;
        return;
      }
      if (batch.length > 0) yield batch;
      if (ended) return;
    }
    yield [streamBroken("The upstream stream ended before the message finished")];
  } finally {
    try {
      await chunks.return?.();
    } catch {
      // Cancelling a body that already failed: nothing left to stop.
    }
  }
}
