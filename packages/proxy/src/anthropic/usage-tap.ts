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
 * counts). Pull-based, so the client's pace is upstream's pace (backpressure). `onUsage` runs
 * once the body ended, never for an aborted one; `onEnd` runs once however it ends.
 */
export function tapUsage(body: ReadableStream<Uint8Array>, contentType: string, onUsage: UsageListener, onEnd: () => void): ReadableStream<Uint8Array> {
  const scanner: UsageScanner = contentType.includes("text/event-stream") ? new EventStreamUsage() : new JsonUsage();
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            end();
            controller.close();
            const result = scanner.finish();
            if (result) onUsage(result.model, result.usage);
            return;
          }
          controller.enqueue(value);
          scanner.push(value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
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
    if (this.size > MAX_JSON_BYTES) return undefined;
    try {
      const message = JSON.parse(Buffer.concat(this.chunks).toString("utf8")) as { type?: string; model?: string; usage?: WireUsage };
      if (message.type !== "message" || !message.usage) return undefined;
      const usage = zeroUsage();
      applyUsage(usage, message.usage);
      return { model: String(message.model ?? "unknown"), usage };
    } catch {
      return undefined;
    }
  }
}

/** Reads only `data:` lines that mention usage; content deltas are skipped by a byte search. */
class EventStreamUsage implements UsageScanner {
  private readonly decoder = new TextDecoder();
  private pending = "";
  private model: string | undefined;
  private readonly usage = zeroUsage();

  push(chunk: Uint8Array): void {
    const text = this.pending + this.decoder.decode(chunk, { stream: true });
    const lastBreak = text.lastIndexOf("\n");
    if (lastBreak === -1) {
      this.pending = text;
      return;
    }
    this.pending = text.slice(lastBreak + 1);
    if (!text.includes('"usage"')) return;
    for (const line of text.slice(0, lastBreak).split("\n")) {
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
    if (this.pending.startsWith("data:")) this.readEvent(this.pending.slice(5));
    return this.model === undefined ? undefined : { model: this.model, usage: this.usage };
  }
}
