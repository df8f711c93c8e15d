import { StringDecoder } from "node:string_decoder";
import type { CallGuard } from "../../admission/call-guard.js";
import type { MessagesDelta, MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";
import { type CodexTextKind, eventWithReleased, kindOfDelta, kindOfDone, textKey } from "./codex-texts.js";
import { StreamGuard, type StreamItem } from "./guarded-events.js";
import { fieldsOf } from "./messages-frames.js";

type Json = Record<string, unknown>;

/** One guarded text of the answer: where its deltas go, the text upstream sent and the text the client got. */
interface TextPart {
  kind: CodexTextKind;
  itemId: unknown;
  outputIndex: unknown;
  subIndex: unknown;
  sent: string;
  released: string;
  /** Its done event came: its scanner was flushed. */
  done: boolean;
}

/** A codex event as the stream guard reads it, with its parsed data (for events that repeat the whole text). */
interface CodexItem extends StreamItem {
  data?: Json;
}

const FRAME_END = "\n\n";
const frameOf = (name: string, data: unknown) => Buffer.from(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
const TEXT_FIELD = { text_delta: "text", thinking_delta: "thinking", input_json_delta: "partial_json" } as const;

/**
 * The response guardrails of one codex answer (a Responses API stream), on its SSE bytes: every
 * model text the answer streams — output text, reasoning text and summaries, function call
 * arguments and custom tool input (`CODEX_TEXT_KINDS`) — runs through the stream guard the proxy
 * uses for every answer (each text as one content block's deltas, with the same look-behind
 * window), so events nothing matched go out as upstream's own bytes; a masked text goes out as a
 * delta of the same shape, and the events that repeat the whole text (its `.done`, the part's and
 * item's `done`, `response.completed`) carry the masked text too, so the SSE stays valid JSON
 * events a client's accumulator agrees with. A block ends the stream at once with
 * `response.failed` (`error.code` `guardrail_violation`).
 */
class CodexAnswerGuard {
  ended = false;
  private readonly streamGuard: StreamGuard;
  private readonly parts = new Map<string, TextPart>();
  private readonly byIndex: TextPart[] = [];
  private rest = "";
  /** A character split across two chunks waits for its last bytes. */
  private readonly decoder = new StringDecoder("utf8");
  private response: Json = {};
  private sequence = 0;

  constructor(guard: CallGuard) {
    this.streamGuard = new StreamGuard(guard);
  }

  /** The bytes a chunk of upstream releases (empty: nothing yet). */
  async push(chunk: Uint8Array): Promise<Uint8Array> {
    const text = (this.rest + this.decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))).replace(/\r\n?/g, "\n");
    const items: CodexItem[] = [];
    let start = 0;
    for (let end = text.indexOf(FRAME_END); end !== -1; end = text.indexOf(FRAME_END, start)) {
      const frame = text.slice(start, end + 2);
      start = end + 2;
      items.push(this.itemOf(frame));
    }
    this.rest = text.slice(start);
    const out = await this.streamGuard.take(items);
    if (this.streamGuard.ended) this.ended = true;
    return Buffer.concat(out.map((item) => this.bytesOf(item as CodexItem)));
  }

  /** Upstream ended without completing: its last frame, and the text still held back, go out (or the block a flush finds). */
  async end(): Promise<Uint8Array> {
    const rest = `${this.rest}${this.decoder.end()}`;
    const items: CodexItem[] = rest.trim() === "" ? [] : [this.itemOf(`${rest}\n\n`)];
    this.byIndex.forEach((part, index) => {
      if (!part.done) items.push({ event: { type: "content_block_stop", index } });
    });
    const out = await this.streamGuard.take(items);
    return Buffer.concat(out.map((item) => this.bytesOf(item as CodexItem)));
  }

  private itemOf(frame: string): CodexItem {
    const bytes = Buffer.from(frame);
    const { name, data } = fieldsOf(frame.slice(0, -2));
    let parsed: unknown;
    try {
      parsed = data === undefined ? undefined : JSON.parse(data);
    } catch {
      parsed = undefined;
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return { event: { type: "ping" }, frame: bytes };
    const json = parsed as Json;
    const type = typeof json.type === "string" ? json.type : name;
    if ((type === "response.created" || type === "response.in_progress") && typeof json.response === "object")
      this.response = json.response as Json;
    const deltaKind = type === undefined ? undefined : kindOfDelta.get(type);
    if (deltaKind && typeof json.delta === "string") {
      const part = this.partOf(deltaKind, json);
      part.sent += json.delta;
      const index = this.byIndex.indexOf(part);
      const delta = { type: deltaKind.deltaType, [TEXT_FIELD[deltaKind.deltaType]]: json.delta } as MessagesDelta;
      return { event: { type: "content_block_delta", index, delta }, frame: bytes, data: json };
    }
    const doneKind = type === undefined ? undefined : kindOfDone.get(type);
    if (doneKind) {
      const part = this.partOf(doneKind, json);
      part.done = true;
      return { event: { type: "content_block_stop", index: this.byIndex.indexOf(part) }, frame: bytes, data: json };
    }
    // The answer is complete: a response webhook is asked here, as at a Messages stream's `message_stop`.
    if (type === "response.completed") return { event: { type: "message_stop" }, frame: bytes, data: json };
    const ends = type === "response.failed" || type === "response.incomplete" || type === "error";
    return {
      event: (ends ? { type: "error", error: { type: "upstream" } } : { type: "ping" }) as MessagesStreamEvent,
      frame: bytes,
      data: json,
    };
  }

  private partOf(kind: CodexTextKind, data: Json): TextPart {
    const subIndex = kind.subIndex ? data[kind.subIndex] : 0;
    const key = textKey(kind.name, data.output_index, subIndex);
    let part = this.parts.get(key);
    if (!part) {
      part = { kind, itemId: data.item_id, outputIndex: data.output_index, subIndex, sent: "", released: "", done: false };
      this.parts.set(key, part);
      this.byIndex.push(part);
    }
    return part;
  }

  private bytesOf(item: CodexItem): Uint8Array {
    const event = item.event;
    if (typeof item.data?.sequence_number === "number") this.sequence = item.data.sequence_number;
    if (event.type === "content_block_delta") {
      const part = this.byIndex[event.index] as TextPart;
      const text = (event.delta as Record<string, unknown>)[TEXT_FIELD[part.kind.deltaType]] as string;
      part.released += text;
      if (item.frame) return item.frame;
      // A masked text, as a delta of upstream's shape (the sequence number of the event before it).
      return frameOf(part.kind.delta, {
        type: part.kind.delta,
        sequence_number: this.sequence,
        item_id: part.itemId,
        output_index: part.outputIndex,
        ...(part.kind.subIndex ? { [part.kind.subIndex]: part.subIndex } : {}),
        delta: text,
      });
    }
    if (event.type === "error" && !item.frame)
      return frameOf("response.failed", {
        type: "response.failed",
        sequence_number: this.sequence + 1,
        response: { ...this.response, status: "failed", error: { code: "guardrail_violation", message: errorMessageOf(event) } },
      });
    if (item.data && item.frame && this.masked()) {
      // Only masked texts are written in again: a text upstream repeats whole without deltas stays its own.
      const rewritten = eventWithReleased(item.data, (key) => {
        const part = this.parts.get(key);
        return part && part.released !== part.sent ? part.released : undefined;
      });
      return rewritten ? frameOf(String(item.data.type), rewritten) : item.frame;
    }
    return item.frame ?? new Uint8Array();
  }

  private masked(): boolean {
    return this.byIndex.some((part) => part.released !== part.sent);
  }
}

const errorMessageOf = (event: MessagesStreamEvent) => (event as { error?: { message?: string } }).error?.message ?? "";

/**
 * A codex answer's body with the call's response guardrails: read chunk by chunk, guarded, and
 * ended (upstream cancelled) once a block ends it or the response completes; a stream upstream
 * cut short still gets the text held back for the window.
 *
 * @example
 * return rawResponse(guardedCodexBytes(chunksOf(reply.body), guard), { status: reply.status, headers });
 */
export async function* guardedCodexBytes(body: AsyncIterable<Uint8Array>, guard: CallGuard): AsyncGenerator<Uint8Array> {
  const codex = new CodexAnswerGuard(guard);
  for await (const chunk of body) {
    const bytes = await codex.push(chunk);
    if (bytes.byteLength > 0) yield bytes;
    // Leaving the loop returns upstream's body, which cancels it.
    if (codex.ended) return;
  }
  const bytes = await codex.end();
  if (bytes.byteLength > 0) yield bytes;
}
