import { type GuardrailHit, type ScanStep, type StreamScanner, estimateTokens, violationMessage } from "@conduit-ai/guardrails";
import type { CallGuard } from "../../admission/call-guard.js";
import type { MessagesDelta, MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";

/** The error event a blocked stream ends with; each surface's encoder writes it in its vendor's form. */
export function guardrailErrorEvent(hit: GuardrailHit & { reason?: string }): MessagesStreamEvent {
  return { type: "error", error: { type: "guardrail_violation", message: violationMessage(hit) } };
}

/** A stream event and, when it came as SSE bytes, its frame: sent again as is unless a guardrail changed it. */
export interface StreamItem {
  event: MessagesStreamEvent;
  frame?: Uint8Array;
  /**
   * The frame as a place in the bytes read (`bytes` from `start` to `end`) rather than `frame`:
   * no view is made per event, only one per run of frames sent together.
   */
  bytes?: Uint8Array;
  start?: number;
  end?: number;
  /** Its text holds none of the guardrails' hint characters (found while reading it from bytes): the scanner skips that test. */
  hintFree?: boolean;
}

/** The field of a delta that carries model text (tool input JSON and thinking included); signatures are not text. */
function textFieldOf(delta: MessagesDelta): "text" | "partial_json" | "thinking" | undefined {
  switch (delta.type) {
    case "text_delta":
      return "text";
    case "input_json_delta":
      return "partial_json";
    case "thinking_delta":
      return "thinking";
    default:
      return undefined;
  }
}

/** One content block's scanner and the deltas it holds back (released whole when nothing in them changed). */
interface Channel {
  scanner: StreamScanner | undefined;
  field: "text" | "partial_json" | "thinking";
  deltaType: string;
  reported: number;
  held: StreamItem[];
  heldLengths: number[];
  /** Characters of the first held delta already released (in a rewritten event). */
  offset: number;
}

/**
 * The items a scanner's step releases: the held deltas themselves when the step released exactly
 * them unchanged (their bytes go out untouched), otherwise one delta event with the released text.
 */
function releasedItems(channel: Channel, index: number, step: ScanStep, out: StreamItem[]): void {
  let consumed = step.consumed;
  if (step.verbatim && channel.offset === 0) {
    let whole = 0;
    let count = 0;
    while (count < channel.held.length && whole < consumed) whole += channel.heldLengths[count++] as number;
    if (whole === consumed) {
      // shift, not splice: splice allocates the array it removes, and this runs per delta.
      for (let item = 0; item < count; item++) {
        out.push(channel.held.shift() as StreamItem);
        channel.heldLengths.shift();
      }
      return;
    }
  }
  if (step.text !== "")
    out.push({
      event: { type: "content_block_delta", index, delta: { type: channel.deltaType, [channel.field]: step.text } as MessagesDelta },
    });
  while (consumed > 0 && channel.held.length > 0) {
    const left = (channel.heldLengths[0] as number) - channel.offset;
    if (consumed < left) {
      channel.offset += consumed;
      return;
    }
    consumed -= left;
    channel.offset = 0;
    channel.held.shift();
    channel.heldLengths.shift();
  }
}

/**
 * The response guardrails of one Messages stream, applied batch by batch as it passes: each
 * content block's text runs through its own scanner, holding back whole deltas covering the
 * window; deltas nothing matched go out as they came (a byte relay sends their frames as they
 * were), masked text is written into a delta of the same shape, the rest released at the block's
 * stop. A block ends the stream at once with an `error` event (`guardrail_violation`): `ended`
 * turns true and the caller stops reading upstream. `maxOutputTokens` counts released text; a
 * response webhook is asked once the answer is complete (the only step that awaits).
 *
 * @example
 * const streamGuard = new StreamGuard(guard);
 * for await (const batch of items) { send(await streamGuard.take(batch)); if (streamGuard.ended) break; }
 */
export class StreamGuard {
  ended = false;
  /** A guardrail ended the stream (the caller stops upstream rather than reading it to its end). */
  blocked = false;
  private readonly channels = new Map<number, Channel>();
  private readonly limit;
  private limitReported = false;
  private released = 0;
  private readonly answer: string[] | undefined;

  constructor(private readonly guard: CallGuard) {
    this.limit = guard.set.outputLimit();
    this.answer = guard.set.asksAboutAnswers ? [] : undefined;
  }

  /** What a batch releases: synchronous unless a response webhook is asked (at `message_stop`). */
  take(batch: readonly StreamItem[]): StreamItem[] | Promise<StreamItem[]> {
    const out: StreamItem[] = [];
    for (let position = 0; position < batch.length; position++) {
      const item = batch[position] as StreamItem;
      const event = item.event;
      if (event.type === "content_block_delta") {
        const blocked = this.delta(item, event, out);
        if (blocked) return this.end(out, blocked);
        continue;
      }
      if (event.type === "content_block_stop") {
        const channel = this.channels.get(event.index);
        if (channel?.scanner) {
          const step = channel.scanner.flush();
          this.report(channel);
          const blocked = step.block ?? (step.text ? this.overLimit(step.text) : undefined);
          if (blocked) return this.end(out, blocked);
          releasedItems(channel, event.index, step, out);
        }
        out.push(item);
        continue;
      }
      if (event.type === "message_stop" && this.answer) return this.askAboutAnswer(batch.slice(position), out);
      out.push(item);
      if (event.type === "message_stop" || event.type === "error") this.ended = true;
    }
    return out;
  }

  /** A delta through its block's scanner; the hit when it ends the stream. */
  private delta(item: StreamItem, event: { index: number; delta: MessagesDelta }, out: StreamItem[]): GuardrailHit | undefined {
    const field = textFieldOf(event.delta);
    const text = field ? (event.delta as Record<string, unknown>)[field] : undefined;
    if (!field || typeof text !== "string") {
      out.push(item);
      return undefined;
    }
    let channel = this.channels.get(event.index);
    if (!channel) {
      const scanner = this.guard.set.streamScanner({ alignToDeltas: true });
      channel = { scanner, field, deltaType: event.delta.type, reported: 0, held: [], heldLengths: [], offset: 0 };
      this.channels.set(event.index, channel);
    }
    if (!channel.scanner) {
      const blocked = text ? this.overLimit(text) : undefined;
      if (!blocked) out.push(item);
      return blocked;
    }
    if (text.length > 0) {
      channel.held.push(item);
      channel.heldLengths.push(text.length);
    }
    const step = channel.scanner.push(text, item.hintFree === true);
    this.report(channel);
    const blocked = step.block ?? (step.text ? this.overLimit(step.text) : undefined);
    if (!blocked) releasedItems(channel, event.index, step, out);
    return blocked;
  }

  private async askAboutAnswer(rest: readonly StreamItem[], out: StreamItem[]): Promise<StreamItem[]> {
    const text = (this.answer ?? []).join("");
    const outcome = await this.guard.set.checkTexts("response", [{ text, replace: () => {} }], this.guard.context);
    this.guard.record(outcome.hits.filter((hit) => hit.kind === "webhook"));
    if (outcome.block) return this.end(out, outcome.block);
    this.ended = true;
    return [...out, ...rest];
  }

  private end(out: StreamItem[], hit: GuardrailHit): StreamItem[] {
    this.ended = true;
    this.blocked = true;
    out.push({ event: guardrailErrorEvent(hit) });
    return out;
  }

  private report(channel: Channel): void {
    const hits = channel.scanner?.hits ?? [];
    if (hits.length > channel.reported) this.guard.record(hits.slice(channel.reported));
    channel.reported = hits.length;
  }

  /** Counts released text; the hit when it passed `maxOutputTokens` (a `log` rule reports once and lets it go on). */
  private overLimit(text: string): GuardrailHit | undefined {
    this.released += text.length;
    this.answer?.push(text);
    const limit = this.limit;
    if (!limit || this.limitReported || estimateTokens(this.released) <= limit.maxTokens) return undefined;
    this.limitReported = true;
    const hit: GuardrailHit = {
      guardrail: limit.name,
      kind: "size",
      action: limit.action === "log" ? "log" : "block",
      direction: "response",
      entity: "max-output-tokens",
    };
    this.guard.record([hit]);
    return hit.action === "block" ? hit : undefined;
  }
}

/** A translated target's Messages stream with the response guardrails (no upstream bytes to keep). */
export async function* guardedEvents(
  events: AsyncIterable<MessagesStreamEvent[]>,
  guard: CallGuard,
): AsyncGenerator<MessagesStreamEvent[]> {
  const streamGuard = new StreamGuard(guard);
  for await (const batch of events) {
    const out = await streamGuard.take(batch.map((event) => ({ event })));
    if (out.length > 0) yield out.map((item) => item.event);
    if (streamGuard.ended) return;
  }
}
