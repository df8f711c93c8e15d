import type { TokenUsage } from "../prices.js";

/** Largest JSON answer kept aside to read its usage; bigger ones pass through uncounted. */
const MAX_JSON_BYTES = 8 * 1024 * 1024;

export type UsageListener = (model: string, usage: TokenUsage) => void;

interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

function applyUsage(target: TokenUsage, usage: WireUsage | undefined): void {
  if (!usage) return;
  if (typeof usage.input_tokens === "number") target.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === "number") target.outputTokens = usage.output_tokens;
  if (typeof usage.cache_read_input_tokens === "number") target.cacheReadTokens = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === "number") target.cacheCreationTokens = usage.cache_creation_input_tokens;
}

function zeroUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
}

/**
 * The upstream body, byte for byte, with its token usage read on the way: a JSON message's
 * `usage`, or a stream's `message_start` usage updated by each `message_delta` (cumulative
 * counts). Pulled chunk by chunk, so the client's pace is upstream's pace (backpressure).
 * `onUsage` runs once the body ended, never for an aborted one; `onEnd` runs once however it
 * ends, and a body left unfinished is destroyed (which aborts the upstream request).
 */
export function tapUsage(
  body: AsyncIterable<Uint8Array> & { destroy?: () => void },
  contentType: string,
  onUsage: UsageListener,
  onEnd: () => void,
): AsyncIterable<Uint8Array> {
  const scanner: UsageScanner = contentType.includes("text/event-stream") ? new EventStreamUsage() : new JsonUsage();
  let finished = false;
  const finish = (completed: boolean) => {
    if (finished) return;
    finished = true;
    onEnd();
    if (!completed) return body.destroy?.();
    const result = scanner.finish();
    if (result) onUsage(result.model, result.usage);
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

/** The usage of a whole JSON message; undefined for anything else (errors included). */
export function jsonUsage(bytes: Buffer): { model: string; usage: TokenUsage } | undefined {
  try {
    const message = JSON.parse(bytes.toString("utf8")) as { type?: string; model?: string; usage?: WireUsage };
    if (message.type !== "message" || !message.usage) return undefined;
    const usage = zeroUsage();
    applyUsage(usage, message.usage);
    return { model: String(message.model ?? "unknown"), usage };
  } catch {
    return undefined;
  }
}

interface UsageScanner {
  push(chunk: Uint8Array): void;
  finish(): { model: string; usage: TokenUsage } | undefined;
}

class JsonUsage implements UsageScanner {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  push(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size <= MAX_JSON_BYTES) this.chunks.push(chunk);
  }

  finish(): { model: string; usage: TokenUsage } | undefined {
    return this.size > MAX_JSON_BYTES ? undefined : jsonUsage(Buffer.concat(this.chunks));
  }
}

const USAGE_MARK = Buffer.from('"usage"');
const NEWLINE = 0x0a;

/**
 * Reads only `data:` lines that mention usage (`message_start`, `message_delta`): a native
 * byte search skips content deltas without decoding them.
 */
class EventStreamUsage implements UsageScanner {
  private pending: Buffer = Buffer.alloc(0);
  private model: string | undefined;
  private readonly usage = zeroUsage();

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const data = this.pending.byteLength > 0 ? Buffer.concat([this.pending, bytes]) : bytes;
    const lastBreak = data.lastIndexOf(NEWLINE);
    // A line cut by the chunk boundary waits for its end (copied: a chunk's memory is not ours).
    this.pending = lastBreak === -1 ? Buffer.from(data) : Buffer.from(data.subarray(lastBreak + 1));
    const mark = data.indexOf(USAGE_MARK);
    if (mark === -1 || mark > lastBreak) return;
    for (const line of data.toString("utf8", 0, lastBreak).split("\n")) {
      if (line.startsWith("data:") && line.includes('"usage"')) this.readEvent(line.slice(5));
    }
  }

  private readEvent(data: string): void {
    try {
      const event = JSON.parse(data) as { type?: string; message?: { model?: string; usage?: WireUsage }; usage?: WireUsage };
      if (event.type === "message_start") {
        this.model = String(event.message?.model ?? "unknown");
        applyUsage(this.usage, event.message?.usage);
      } else if (event.type === "message_delta") {
        applyUsage(this.usage, event.usage);
      }
    } catch {
      // Not an event of ours (or not JSON): passthrough never depends on it.
    }
  }

  finish(): { model: string; usage: TokenUsage } | undefined {
    const rest = this.pending.toString("utf8");
    if (rest.startsWith("data:")) this.readEvent(rest.slice(5));
    return this.model === undefined ? undefined : { model: this.model, usage: this.usage };
  }
}
