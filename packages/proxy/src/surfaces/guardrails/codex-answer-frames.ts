import { StringDecoder } from "node:string_decoder";
import type { CallGuard } from "../../admission/call-guard.js";
import type { MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";
import { StreamGuard, type StreamItem } from "./guarded-events.js";
import { fieldsOf } from "./messages-frames.js";

type Json = Record<string, unknown>;

/** One output text of the answer: where its deltas go, the text upstream sent and the text the client got. */
interface TextPart {
  itemId: unknown;
  outputIndex: number;
  contentIndex: number;
  sent: string;
  released: string;
  /** Its `response.output_text.done` came: its scanner was flushed. */
  done: boolean;
}

/** A codex event as the stream guard reads it, with its parsed data (for events that repeat the whole text). */
interface CodexItem extends StreamItem {
  data?: Json;
}

const FRAME_END = "\n\n";
const keyOf = (outputIndex: unknown, contentIndex: unknown) => `${String(outputIndex)}:${String(contentIndex)}`;
const frameOf = (name: string, data: unknown) => Buffer.from(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

/**
 * The response guardrails of one codex answer (a Responses API stream), on its SSE bytes: each
 * output text's `response.output_text.delta` events run through the stream guard the proxy uses
 * for every answer (as one content block's deltas, with the same look-behind window), so events
 * nothing matched go out as upstream's own bytes; a masked text goes out as a delta of the same
 * shape, and the events that repeat the whole text (`response.output_text.done`,
 * `content_part.done`, `output_item.done`, `response.completed`) carry the masked text too. A
 * block ends the stream at once with `response.failed` (`error.code` `guardrail_violation`).
 * Reasoning summaries and function call arguments pass unchecked.
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
    if (type === "response.output_text.delta" && typeof json.delta === "string") {
      const part = this.partOf(json);
      part.sent += json.delta;
      const index = this.byIndex.indexOf(part);
      return { event: { type: "content_block_delta", index, delta: { type: "text_delta", text: json.delta } }, frame: bytes, data: json };
    }
    if (type === "response.output_text.done") {
      const part = this.partOf(json);
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

  private partOf(data: Json): TextPart {
    const key = keyOf(data.output_index, data.content_index);
    let part = this.parts.get(key);
    if (!part) {
      part = {
        itemId: data.item_id,
        outputIndex: Number(data.output_index),
        contentIndex: Number(data.content_index),
        sent: "",
        released: "",
        done: false,
      };
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
      const text = (event.delta as { text: string }).text;
      part.released += text;
      if (item.frame) return item.frame;
      // A masked text, as a delta of upstream's shape (the sequence number of the event before it).
      return frameOf("response.output_text.delta", {
        type: "response.output_text.delta",
        sequence_number: this.sequence,
        item_id: part.itemId,
        output_index: part.outputIndex,
        content_index: part.contentIndex,
        delta: text,
      });
    }
    if (event.type === "error" && !item.frame)
      return frameOf("response.failed", {
        type: "response.failed",
        sequence_number: this.sequence + 1,
        response: { ...this.response, status: "failed", error: { code: "guardrail_violation", message: errorMessageOf(event) } },
      });
    if (item.data && item.frame && this.masked()) return this.rewritten(item.data) ?? item.frame;
    return item.frame ?? new Uint8Array();
  }

  private masked(): boolean {
    return this.byIndex.some((part) => part.released !== part.sent);
  }

  /** An event that repeats an output text whole, with the text the client got; undefined when it repeats none. */
  private rewritten(data: Json): Uint8Array | undefined {
    const type = String(data.type);
    const textOf = (outputIndex: unknown, contentIndex: unknown) => this.parts.get(keyOf(outputIndex, contentIndex))?.released;
    const content = (item: Json, outputIndex: unknown) =>
      Array.isArray(item.content)
        ? item.content.map((part: Json, contentIndex: number) =>
            part?.type === "output_text" && textOf(outputIndex, contentIndex) !== undefined
              ? { ...part, text: textOf(outputIndex, contentIndex) }
              : part,
          )
        : item.content;
    if (type === "response.output_text.done")
      return frameOf(type, { ...data, text: textOf(data.output_index, data.content_index) ?? data.text });
    if (type === "response.content_part.done" && (data.part as Json | undefined)?.type === "output_text") {
      const text = textOf(data.output_index, data.content_index);
      return text === undefined ? undefined : frameOf(type, { ...data, part: { ...(data.part as Json), text } });
    }
    if (type === "response.output_item.done" && typeof data.item === "object")
      return frameOf(type, { ...data, item: { ...(data.item as Json), content: content(data.item as Json, data.output_index) } });
    if (type === "response.completed" && typeof data.response === "object") {
      const response = data.response as Json;
      const output = Array.isArray(response.output)
        ? response.output.map((item: Json, index: number) => ({ ...item, content: content(item, index) }))
        : response.output;
      return frameOf(type, { ...data, response: { ...response, output } });
    }
    return undefined;
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
