import { type UnreadNodeStream, isUnreadNodeStream, readEventsUpTo } from "@conduit-ai/server-core/node";
import type { TokenUsage } from "../prices.js";

/** The usage a vendor's answer reported, with the model that served it. */
export interface ScannedUsage {
  model: string;
  usage: TokenUsage;
}

/** Reads a vendor's usage out of its answer's bytes as they pass (one per answer). */
export interface UsageScanner {
  push(chunk: Uint8Array): void;
  /** What the answer reported so far (a stream cut short still names its input tokens). */
  finish(): ScannedUsage | undefined;
  /**
   * The whole answer as `finish()` parsed it (a JSON answer; `value` undefined when it was no
   * JSON), so that whoever reads the answer next needs not parse it again.
   */
  parsedBody?(): { value: unknown } | undefined;
  /**
   * An event stream's usage read from its events as someone who parses them anyway hands them
   * over (the guardrails' frame reader), so its bytes are not searched a second time: from the
   * call on, chunks pushed are not read. `unfinished` is called as the body ends, for the frame
   * it held unfinished (a stream cut after a data line still counts it, as the byte search does).
   * Undefined once a chunk was read (the stream is half read).
   */
  takeEvents?(unfinished: () => void): EventDataReader | undefined;
}

/** Given each event's data as JSON parsed it, and its text (the relay's usage, read from a parse someone made anyway). */
export type EventDataReader = (data: unknown, text: string) => void;

/** How a tapped body ended: read to its end, or cut (client gone, upstream failed). */
export interface TapOutcome {
  completed: boolean;
  usage: ScannedUsage | undefined;
}

/**
 * The upstream body, byte for byte, with its usage read on the way by the vendor's scanner.
 * Pulled chunk by chunk, so the client's pace is upstream's pace (backpressure). `onEnd` runs
 * once however it ends; a body left unfinished is destroyed (which aborts the upstream request).
 *
 * @example
 * const body = tapBody(reply.body, new EventStreamUsage(), ({ completed, usage }) => completed && usage && record(usage));
 */
export function tapBody(
  body: AsyncIterable<Uint8Array> & { destroy?: () => void },
  scanner: UsageScanner,
  onEnd: (outcome: TapOutcome) => void,
): AsyncIterable<Uint8Array> {
  let finished = false;
  const finish = (completed: boolean) => {
    if (finished) return;
    finished = true;
    if (!completed) body.destroy?.();
    onEnd({ completed, usage: scanner.finish() });
  };
  // A plain iterator, not an async generator: one promise per chunk instead of three.
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      const source = body[Symbol.asyncIterator]();
      return {
        next: () =>
          source.next().then(
            (step) => {
              if (step.done) finish(true);
              else scanner.push(step.value);
              return step;
            },
            (error: unknown) => {
              finish(false);
              throw error;
            },
          ),
        return: async () => {
          finish(false);
          await source.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/**
 * Server-sent events split into `data:` payloads, only for lines holding `mark`: a native byte
 * search skips content deltas without decoding them. A line cut by a chunk boundary waits for its end.
 */
export class MarkedEventLines {
  private pending: Buffer = Buffer.alloc(0);
  private readonly mark: Buffer;

  constructor(
    mark: string,
    private readonly onData: (data: string) => void,
  ) {
    this.mark = Buffer.from(mark);
  }

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const data = this.pending.byteLength > 0 ? Buffer.concat([this.pending, bytes]) : bytes;
    const lastBreak = data.lastIndexOf(NEWLINE);
    // Copied: a chunk's memory is not ours.
    this.pending = lastBreak === -1 ? Buffer.from(data) : Buffer.from(data.subarray(lastBreak + 1));
    const found = data.indexOf(this.mark);
    if (found === -1 || found > lastBreak) return;
    const mark = this.mark.toString();
    for (const line of data.toString("utf8", 0, lastBreak).split("\n")) {
      if (line.startsWith("data:") && line.includes(mark)) this.onData(line.slice(5));
    }
  }

  /** The last line, when the stream ended without a newline. */
  flush(): void {
    const rest = this.pending.toString("utf8");
    this.pending = Buffer.alloc(0);
    if (rest.startsWith("data:") && rest.includes(this.mark.toString())) this.onData(rest.slice(5));
  }
}

const NEWLINE = 0x0a;

/** A body read up to a limit: whole when it fit, else the chunks read so far and the rest still to pull. */
export type BoundedRead = { whole: Buffer } | { head: Buffer[]; rest: AsyncIterator<Uint8Array> };

/**
 * Reads a body whole when it ends within `limit` bytes; a longer one is not cut: its first chunks
 * and the untouched rest come back, to be streamed on (see `rejoin`).
 *
 * @example
 * const read = await readUpTo(response.body, 1024 * 1024);
 * const body = "whole" in read ? read.whole : rejoin(read);
 */
export function readUpTo(body: AsyncIterable<Uint8Array>, limit: number): Promise<BoundedRead> {
  return isUnreadNodeStream(body) ? readEventsInto(body, limit) : readIteratorUpTo(body, limit);
}

async function readIteratorUpTo(body: AsyncIterable<Uint8Array>, limit: number): Promise<BoundedRead> {
  const source = body[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0;
  for (;;) {
    const step = await source.next();
    if (step.done) return { whole: head.length === 1 ? (head[0] as Buffer) : Buffer.concat(head) };
    head.push(Buffer.from(step.value.buffer, step.value.byteOffset, step.value.byteLength));
    size += step.value.byteLength;
    if (size > limit) return { head, rest: source };
  }
}

/** `readUpTo` over a Node stream's events (cheaper than its iterator); past the limit the rest streams on from there. */
async function readEventsInto(body: UnreadNodeStream, limit: number): Promise<BoundedRead> {
  const { chunks, overLimit } = await readEventsUpTo(body, limit);
  if (overLimit) return { head: chunks, rest: body[Symbol.asyncIterator]() };
  return { whole: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks) };
}

/** The chunks `readUpTo` read, then the rest of the body: one stream again. */
export function rejoin(read: { head: Buffer[]; rest: AsyncIterator<Uint8Array> }): AsyncIterable<Uint8Array> & { destroy?: () => void } {
  const { head, rest } = read;
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const chunk = head.shift();
        return chunk ? Promise.resolve({ done: false, value: chunk }) : rest.next();
      },
      return: async () => (await rest.return?.()) ?? { done: true, value: undefined },
    }),
    destroy: () => void rest.return?.(),
  };
}

/**
 * A small answer (an upstream error) read whole, cut at `limit` bytes (the body destroyed there).
 * A Node answer is read through its events, not its iterator: a failover reads one on every call.
 *
 * @example
 * const body = await readBounded(response.body);
 */
export async function readBounded(body: AsyncIterable<Uint8Array> & { destroy?: () => void }, limit = 1024 * 1024): Promise<Buffer> {
  const destroy = () => body.destroy?.();
  if (isUnreadNodeStream(body)) {
    // Past `limit - 1` bytes is the iterator's "at least `limit` bytes": the same cut.
    const { chunks, overLimit } = await readEventsUpTo(body, limit - 1);
    if (overLimit) destroy();
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    size += chunk.byteLength;
    if (size >= limit) {
      destroy();
      break;
    }
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}
