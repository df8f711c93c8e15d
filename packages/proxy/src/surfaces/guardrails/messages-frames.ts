import type { MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";
import { streamBroken } from "../../wire/anthropic-messages/sse-decoder.js";
import type { CallGuard } from "../../admission/call-guard.js";
import type { EventDataReader, UsageScanner } from "../../relay/body-tap.js";
import { partsOf } from "./frame-parts.js";
import { StreamGuard, type StreamItem } from "./guarded-events.js";
import { type TextDeltaCursor, textDeltaFrameAt } from "./text-delta-frame.js";

/** The `event:` name and the `data:` of one SSE frame (data lines joined by line feeds). */
export function fieldsOf(frame: string): { name: string | undefined; data: string | undefined } {
  // The Messages API's own shape, `event: <name>\ndata: <json>`, read with two searches.
  const split = frame.startsWith("event: ") ? frame.indexOf("\ndata: ") : -1;
  if (split !== -1 && frame.indexOf("\n", split + 1) === -1) return { name: frame.slice(7, split), data: frame.slice(split + 7) };
  let name: string | undefined;
  let data: string | undefined;
  for (let start = 0; start < frame.length; ) {
    const newline = frame.indexOf("\n", start);
    const end = newline === -1 ? frame.length : newline;
    const colon = frame.indexOf(":", start);
    const field = colon === -1 || colon > end ? frame.slice(start, end) : frame.slice(start, colon);
    let value = colon === -1 || colon > end ? "" : frame.slice(colon + 1, end);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data = data === undefined ? value : `${data}\n${value}`;
    start = end + 1;
  }
  return { name, data };
}

/**
 * The event of one SSE frame; null for a frame without data (a keep-alive), undefined when its
 * data is not a JSON object with a type. `onData` is given any data that parsed, as JSON gave it.
 */
function eventOfFrame(frame: string, onData: EventDataReader | undefined): MessagesStreamEvent | undefined | null {
  const { name, data } = fieldsOf(frame);
  // A frame of comments only (a keep-alive) carries no event.
  if (data === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  onData?.(parsed, data);
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const event = parsed as { type?: unknown };
  // The SSE event name wins, as the Messages API sends both and names them alike.
  const type = name ?? event.type;
  if (typeof type !== "string") return undefined;
  return (event.type === type ? event : { ...event, type }) as MessagesStreamEvent;
}

/** Chunks up to this size are read through `readCopy` (see `read`). */
const READ_COPY_BYTES = 2048;
const readCopy = Buffer.alloc(READ_COPY_BYTES);
const readCopyView = new DataView(readCopy.buffer, readCopy.byteOffset, READ_COPY_BYTES);
const CARRIAGE_RETURN = 0x0d;
const LINE_FEED = 0x0a;
/** The blank line that ends a frame, searched as bytes (a string needle would be encoded on every search). */
const FRAME_END = Buffer.from("\n\n");

/**
 * Splits a Messages API event stream's bytes into items that keep each event's own frame (a
 * slice of the bytes read, not a copy), so unchanged events go out as upstream sent them. CRLF
 * and CR line ends are read as LF (those frames are written anew). `ended` turns true after
 * `message_stop`, an `error` event, or a malformed event (then an `upstream_stream_error`).
 */
export class MessagesFrameSplitter {
  ended = false;
  /** Upstream ended its answer itself (`message_stop`, or its own `error` event), not a malformed frame. */
  completed = false;
  private rest: Buffer | undefined;
  private carriageReturns = false;
  private readonly cursor: TextDeltaCursor = { end: 0, hintFree: false, latin1: undefined, latin1From: 0 };

  /**
   * `hintBytes`: the guardrails' hint characters as UTF-8 bytes (`HintChars.utf8`), tested in each
   * text delta read from bytes. `onData`: given each frame's data the splitter parsed (not the text
   * deltas it read without a parse).
   */
  constructor(
    private readonly hintBytes?: Uint8Array,
    private readonly onData?: EventDataReader,
  ) {}

  push(chunk: Uint8Array): StreamItem[] {
    // Upstream's chunks are Buffers already: a wrapper per chunk showed in profiles (one event per chunk is common).
    let bytes = chunk instanceof Buffer ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const items: StreamItem[] = [];
    const rest = this.rest;
    this.rest = undefined;
    if (this.carriageReturns || bytes.includes(CARRIAGE_RETURN)) {
      this.carriageReturns = true;
      if (rest) bytes = Buffer.concat([rest, bytes]);
      // A CR at the very end may be the first half of a CRLF: it waits for the next chunk.
      const trailing = bytes[bytes.length - 1] === CARRIAGE_RETURN ? 1 : 0;
      const text = bytes
        .subarray(0, bytes.length - trailing)
        .toString("utf8")
        .replace(/\r\n?/g, "\n");
      bytes = Buffer.concat([Buffer.from(text), bytes.subarray(bytes.length - trailing)]);
    } else if (rest) {
      // Only the frame the last chunk cut is joined with this chunk's start (not the whole chunk
      // copied behind it); the frames after it are read where they lie.
      let joined: number;
      // The blank line may itself be split: rest's last line feed and this chunk's first.
      if (rest[rest.length - 1] === LINE_FEED && bytes[0] === LINE_FEED) joined = 1;
      else {
        const boundary = bytes.indexOf(FRAME_END);
        joined = boundary === -1 ? bytes.length : boundary + 2;
      }
      this.read(Buffer.concat([rest, bytes.subarray(0, joined)]), items);
      bytes = bytes.subarray(joined);
    }
    if (!this.ended) this.read(bytes, items);
    return items;
  }

  /** The frames of `bytes` into `items`; an unfinished one at its end is kept for the next chunk. */
  private read(bytes: Buffer, items: StreamItem[]): void {
    // The text deltas are read through a DataView: a small chunk (often one event) is copied into
    // one kept for the purpose, cheaper than a DataView of its own; the frames kept are the chunk's.
    const small = bytes.length <= READ_COPY_BYTES;
    if (small) readCopy.set(bytes);
    const readable = small ? readCopy : bytes;
    const view = small ? readCopyView : new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.cursor.latin1 = undefined;
    let start = 0;
    while (!this.ended && start < bytes.length) {
      // Most frames are text deltas, read where they start (their end follows from their text);
      // any other frame is found by its blank line and parsed.
      let event: MessagesStreamEvent | undefined | null = textDeltaFrameAt(
        readable,
        view,
        start,
        this.cursor,
        this.hintBytes,
        bytes.length,
      );
      let end: number;
      let hintFree = false;
      if (event) {
        end = this.cursor.end;
        hintFree = this.cursor.hintFree;
      } else {
        const boundary = bytes.indexOf(FRAME_END, start);
        if (boundary === -1) break;
        end = boundary + 2;
        event = eventOfFrame(bytes.toString("utf8", start, boundary), this.onData);
      }
      const frameStart = start;
      start = end;
      if (event === null) continue;
      if (event === undefined) {
        items.push({ event: streamBroken("The upstream sent a malformed stream event") });
        this.ended = true;
        break;
      }
      // Where the frame lies, not a view of it (a typed array per event showed in profiles); CR line ends were rewritten: framed anew.
      items.push(
        this.carriageReturns ? { event, bytes: undefined, start: 0, end: 0, hintFree } : { event, bytes, start: frameStart, end, hintFree },
      );
      if (event.type === "message_stop" || event.type === "error") {
        this.ended = true;
        this.completed = true;
      }
    }
    // The decode of these bytes is not kept for the next ones (the texts read keep what they need of it).
    this.cursor.latin1 = undefined;
    // The unfinished frame waits for the next chunk (copied: the chunk's memory may be reused).
    if (!this.ended && start < bytes.length) this.rest = Buffer.from(bytes.subarray(start));
  }

  /** The body ended (or was cut) with a frame unfinished: its data, when it parses, still goes to `onData`. */
  readUnfinished(): void {
    if (this.ended || !this.rest || !this.onData) return;
    eventOfFrame(this.rest.toString("utf8"), this.onData);
  }
}

/**
 * The pool's Messages stream with the response guardrails, as bytes: read chunk by chunk (the
 * client's pace is upstream's), each chunk's events guarded and sent as upstream's own frames
 * unless a guardrail changed them. A plain iterator, not a chain of async generators: a chunk
 * costs one promise. Ends like `decodeMessagesStream`: after `message_stop` or `error`; a
 * malformed event, a read failure or an early end add an `error` event (`upstream_stream_error`);
 * after an answer upstream completed, its body is read to its end (as an unguarded relay does:
 * the connection is reused, the usage complete); otherwise (a block, a broken stream, the client
 * gone) upstream's body is returned, which cancels it.
 *
 * @example
 * return { ...reply, body: guardedMessagesBytes(chunksOf(reply.body), guard) };
 */
export function guardedMessagesBytes(
  body: AsyncIterable<Uint8Array>,
  guard: CallGuard,
  takeUsage?: UsageScanner["takeEvents"],
): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      const source = body[Symbol.asyncIterator]();
      // The relay's usage is read from the events this reads anyway (see `UsageScanner.takeEvents`).
      const onData = takeUsage?.(() => splitter.readUnfinished());
      const splitter = new MessagesFrameSplitter(guard.set.streamHintChars()?.utf8, onData);
      const streamGuard = new StreamGuard(guard);
      let finished = false;
      let draining = false;
      const finish = async () => {
        if (finished) return;
        finished = true;
        try {
          await source.return?.();
        } catch {
          // Cancelling a body that already failed: nothing left to stop.
        }
      };
      /** Parts of a batch still to send: one leaves per pull (side by side on the wire, not copied together). */
      const queued: Uint8Array[] = [];
      /** The first part of a batch (the others queued), or undefined when it released nothing. */
      const resultOf = (parts: Uint8Array[]): IteratorResult<Uint8Array> | undefined => {
        if (parts.length === 0) return undefined;
        for (let index = 1; index < parts.length; index++) queued.push(parts[index] as Uint8Array);
        return { done: false, value: parts[0] as Uint8Array };
      };
      /**
       * The parts a batch releases. Synchronous in the common case, so a chunk costs no promise
       * beyond its read; the end of the stream and a webhook's answer await.
       */
      const released = (taken: StreamItem[] | Promise<StreamItem[]>): Uint8Array[] | Promise<Uint8Array[]> => {
        if (Array.isArray(taken) && !streamGuard.ended && !splitter.ended) return partsOf(taken);
        return (async () => {
          const out = await taken;
          // Upstream finished its answer and no guardrail cut it: the rest of its body (its end)
          // is read on the next pull, not cancelled, so its connection is kept alive for the next
          // call and its usage and trace count the answer as complete.
          if (splitter.completed && !streamGuard.blocked) draining = true;
          else await finish();
          return partsOf(out);
        })();
      };
      /** What upstream sends after the answer's end, read and dropped; then the stream is done. */
      const drain = async (): Promise<IteratorResult<Uint8Array>> => {
        finished = true;
        try {
          let step = await source.next();
          while (!step.done) step = await source.next();
        } catch {
          // Upstream failed after the answer ended: the client has it all already.
        }
        return { done: true, value: undefined };
      };
      const failed = (message: string) => async (): Promise<IteratorResult<Uint8Array>> =>
        resultOf(await released(streamGuard.take([{ event: streamBroken(message) }]))) ?? { done: true, value: undefined };
      /** What one read of upstream gives: its bytes, or the next read's when it released none. Made once, not per read. */
      const onRead = (step: IteratorResult<Uint8Array>): IteratorResult<Uint8Array> | Promise<IteratorResult<Uint8Array>> => {
        if (step.done) return failed("The upstream stream ended before the message finished")();
        const items = splitter.push(step.value);
        if (items.length === 0) return next();
        const parts = released(streamGuard.take(items));
        if (parts instanceof Promise) return parts.then((value) => resultOf(value) ?? next());
        return resultOf(parts) ?? next();
      };
      const onReadFailed = failed("The upstream stream failed before it finished");
      /** The next part queued, else one read of upstream, chained with `then` (no async function per chunk). */
      const next = (): Promise<IteratorResult<Uint8Array>> => {
        if (queued.length > 0) return Promise.resolve({ done: false, value: queued.shift() as Uint8Array });
        if (finished) return Promise.resolve({ done: true, value: undefined });
        if (draining) return drain();
        return source.next().then(onRead, onReadFailed);
      };
      return {
        next,
        return: async () => {
          await finish();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
