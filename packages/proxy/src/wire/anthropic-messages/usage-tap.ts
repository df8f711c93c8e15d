import { type AnthropicWireUsage, type MeteredUsage, usageFromAnthropic } from "@conduit-ai/server-core/pricing";
import { type EventDataReader, MarkedEventLines, type ScannedUsage, type UsageScanner, tapBody } from "../../relay/body-tap.js";

/** Largest JSON answer kept aside to read its usage; bigger ones pass through uncounted. */
const MAX_JSON_BYTES = 8 * 1024 * 1024;

export type UsageListener = (model: string, usage: MeteredUsage) => void;

/**
 * Folds a later report into the usage read so far: a stream's `message_delta` repeats the counts
 * cumulatively and may leave fields out (or null) that `message_start` gave.
 */
function applyUsage(target: AnthropicWireUsage, usage: AnthropicWireUsage | undefined): void {
  if (!usage) return;
  for (const [field, value] of Object.entries(usage))
    if (value !== null && value !== undefined) (target as Record<string, unknown>)[field] = value;
}

/** The Messages API's usage reader for an answer of `contentType` (SSE or JSON). */
export function messagesUsageScanner(contentType: string): UsageScanner {
  return contentType.includes("text/event-stream") ? new EventStreamUsage() : new JsonUsage();
}

/**
 * The upstream body, byte for byte, with its token usage read on the way: a JSON message's
 * `usage`, or a stream's `message_start` usage updated by each `message_delta` (cumulative
 * counts). `onUsage` runs once the body ended, never for an aborted one; `onEnd` runs once
 * however it ends, and a body left unfinished is destroyed (which aborts the upstream request).
 *
 * @example
 * const body = tapUsage(upstream.body, "text/event-stream", (model, usage) => record(model, usage), () => lease.release());
 */
export function tapUsage(
  body: AsyncIterable<Uint8Array> & { destroy?: () => void },
  contentType: string,
  onUsage: UsageListener,
  onEnd: () => void,
): AsyncIterable<Uint8Array> {
  return tapBody(body, messagesUsageScanner(contentType), ({ completed, usage }) => {
    onEnd();
    if (completed && usage) onUsage(usage.model, usage.usage);
  });
}

/** The usage of a whole JSON message; undefined for anything else (errors included). */
export function jsonUsage(bytes: Buffer): ScannedUsage | undefined {
  return usageOfParsed(parsedJson(bytes));
}

function parsedJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

function usageOfParsed(parsed: unknown): ScannedUsage | undefined {
  const message = parsed as { type?: string; model?: string; usage?: AnthropicWireUsage } | null | undefined;
  if (typeof message !== "object" || message === null || message.type !== "message" || !message.usage) return undefined;
  return { model: String(message.model ?? "unknown"), usage: usageFromAnthropic(message.usage) };
}

class JsonUsage implements UsageScanner {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  private parsed: { value: unknown } | undefined;

  push(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size <= MAX_JSON_BYTES) this.chunks.push(chunk);
  }

  finish(): ScannedUsage | undefined {
    if (this.size > MAX_JSON_BYTES) return undefined;
    this.parsed ??= { value: parsedJson(this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks)) };
    return usageOfParsed(this.parsed.value);
  }

  parsedBody(): { value: unknown } | undefined {
    return this.parsed;
  }
}

const USAGE_MARK = '"usage"';

/** Reads only the events that mention usage (`message_start`, `message_delta`). */
class EventStreamUsage implements UsageScanner {
  private model: string | undefined;
  private readonly usage: AnthropicWireUsage = {};
  private readonly lines = new MarkedEventLines(USAGE_MARK, (data) => this.readEvent(data));
  private pushed = false;
  /** The events come parsed through `takeEvents`: the bytes pushed are not read. */
  private handedOver = false;
  private unfinished: (() => void) | undefined;

  push(chunk: Uint8Array): void {
    if (this.handedOver) return;
    this.pushed = true;
    this.lines.push(chunk);
  }

  takeEvents(unfinished: () => void): EventDataReader | undefined {
    if (this.pushed) return undefined;
    this.handedOver = true;
    this.unfinished = unfinished;
    // As the byte search reads them: only events whose data mentions usage. (An event whose data
    // spans several lines is read whole here, line by line there: the Messages API sends one line.)
    return (data, text) => {
      if (text.includes(USAGE_MARK)) this.readParsed(data);
    };
  }

  private readEvent(data: string): void {
    try {
      this.readParsed(JSON.parse(data));
    } catch {
      // Not an event of ours (or not JSON): passthrough never depends on it.
    }
  }

  private readParsed(data: unknown): void {
    if (data === null || typeof data !== "object") return;
    const event = data as { type?: string; message?: { model?: string; usage?: AnthropicWireUsage }; usage?: AnthropicWireUsage };
    if (event.type === "message_start") {
      this.model = String(event.message?.model ?? "unknown");
      applyUsage(this.usage, event.message?.usage);
    } else if (event.type === "message_delta") {
      applyUsage(this.usage, event.usage);
    }
  }

  finish(): ScannedUsage | undefined {
    if (this.handedOver) this.unfinished?.();
    else this.lines.flush();
    return this.model === undefined ? undefined : { model: this.model, usage: usageFromAnthropic(this.usage) };
  }
}
