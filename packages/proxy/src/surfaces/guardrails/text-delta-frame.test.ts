import { createGuardrails } from "@conduit-ai/guardrails";
import { describe, expect, it } from "vitest";
import { textDeltaFrameAt } from "./text-delta-frame.js";

const frameOf = (data: string) => `event: content_block_delta\ndata: ${data}\n\n`;
const deltaFrame = (text: string, index = 0) =>
  frameOf(JSON.stringify({ type: "content_block_delta", index, delta: { type: "text_delta", text } }));

/** What `textDeltaFrameAt` reads at `start` of the bytes (a DataView over them, as the splitter passes): the event, its end, no hint. */
function readBytes(bytes: Buffer, start = 0, hintBytes?: Uint8Array) {
  const cursor = { end: -1, hintFree: false };
  const event = textDeltaFrameAt(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), start, cursor, hintBytes);
  return event && { event, end: cursor.end, hintFree: cursor.hintFree };
}
const readAt = (frames: string, start = 0, hintBytes?: Uint8Array) => readBytes(Buffer.from(frames), start, hintBytes);

describe("textDeltaFrameAt", () => {
  it("reads a text delta as JSON.parse would, and says where its frame ends", () => {
    for (const text of ["", "a", " lorem ipsum dolor", "grüße — 😀 ok", "x".repeat(1000)])
      for (const index of [0, 7, 123456789]) {
        const frame = deltaFrame(text, index);
        const before = deltaFrame("before");
        const read = readAt(before + frame + deltaFrame("after"), Buffer.byteLength(before));
        expect(read?.event).toEqual(JSON.parse(frame.slice(frame.indexOf("data: ") + 6)));
        expect(read?.end).toBe(Buffer.byteLength(before + frame));
      }
  });

  it("reads the frames of the same bytes one after the other with one cursor, ASCII and not", () => {
    const texts = ["first text", "grüße — 😀", "", "third, after a non-ASCII one", "x".repeat(300), "last"];
    const bytes = Buffer.from(texts.map((text, index) => deltaFrame(text, index)).join(""));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const cursor = { end: 0, hintFree: false };
    const read: unknown[] = [];
    for (let start = 0; start < bytes.length; start = cursor.end) read.push(textDeltaFrameAt(bytes, view, start, cursor));
    expect(read).toEqual(texts.map((text, index) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } })));
  });

  it("leaves a quote, a backslash or a control character at any offset of the text to the JSON parser", () => {
    // The text is checked four bytes at a time: each special byte at each place in a word.
    // Written raw into the frame (an escape as JSON writes it, the others as no JSON writer would).
    const raw = (text: string) => frameOf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}`);
    for (const special of ['\\"', "\\n", '"', "\n", "\t", "\u0001", "\u001f"])
      for (let offset = 0; offset < 9; offset++) {
        const text = `${"abcdefgh".slice(0, offset)}${special}tail text`;
        expect(readAt(raw(text)), JSON.stringify(text)).toBeUndefined();
      }
    expect(readAt(raw("abcdefgh tail text"))?.event).toMatchObject({ delta: { text: "abcdefgh tail text" } });
  });

  it("reads nothing from an unfinished frame, wherever it was cut", () => {
    const frame = deltaFrame("grace hopper — é", 12);
    const bytes = Buffer.from(frame);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let cut = 0; cut < bytes.length; cut++) {
      expect(readBytes(bytes.subarray(0, cut)), `cut at ${cut}`).toBeUndefined();
      // Cut by `length` in bytes that go on (a copy held in a larger buffer): what lies after it is not read.
      expect(textDeltaFrameAt(bytes, view, 0, { end: -1, hintFree: false }, undefined, cut), `length ${cut}`).toBeUndefined();
    }
    expect(readAt(frame)?.event).toMatchObject({ index: 12, delta: { text: "grace hopper — é" } });
  });

  it("says a text holds no hint character only when none of the guardrails' is in it, at any place", () => {
    const hintChars = createGuardrails({
      rules: [
        { name: "pii", kind: "pii", on: "response" },
        { name: "secrets", kind: "secrets", on: "response" },
      ],
      default: ["pii", "secrets"],
    })
      .select()
      ?.streamHintChars();
    if (!hintChars) throw new Error("pii and secrets have hint characters");
    const prose = "lorem ipsum dolor sit amet — grüße";
    expect(readAt(deltaFrame(prose), 0, hintChars.utf8)?.hintFree).toBe(true);
    expect(readAt(deltaFrame(prose))?.hintFree).toBe(false);
    // The bytes are looked up four at a time with the search for the text's end: each character at
    // each place of a word, in texts ending at each place of one, with multi-byte characters before it.
    for (const char of "@+0123456789:AwW_-xJ")
      for (let at = 0; at <= prose.length; at++) {
        const text = `${prose.slice(0, at)}${char}${prose.slice(at)}`;
        expect(readAt(deltaFrame(text), 0, hintChars.utf8)?.hintFree, JSON.stringify(text)).toBe(false);
      }
    for (let length = 0; length <= 9; length++) {
      expect(readAt(deltaFrame(prose.slice(0, length)), 0, hintChars.utf8)?.hintFree).toBe(true);
      expect(readAt(deltaFrame(`${prose.slice(0, length)}@`), 0, hintChars.utf8)?.hintFree).toBe(false);
    }
  });

  it("reads nothing when any byte around the index and the text differs from the Messages API's framing", () => {
    const frame = deltaFrame("some text", 7);
    const text = frame.indexOf("some text");
    const index = frame.indexOf(":7,") + 1;
    for (let at = 0; at < frame.length; at++) {
      if (at === index || (at >= text && at < text + "some text".length)) continue;
      const changed = `${frame.slice(0, at)}#${frame.slice(at + 1)}`;
      expect(readAt(changed), `byte ${at}`).toBeUndefined();
    }
  });

  it("leaves every other frame to the parser", () => {
    const others = [
      frameOf(JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":' } })),
      frameOf(JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi", extra: 1 } })),
      frameOf(JSON.stringify({ type: "content_block_delta", delta: { type: "text_delta", text: "no index" }, index: 0 })),
      frameOf('{"type":"content_block_delta","index":x,"delta":{"type":"text_delta","text":"bad index"}}'),
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\nid: 1\n\n',
      'event: ping\ndata: {"type":"ping"}\n\n',
    ];
    for (const frame of others) expect(readAt(frame), frame).toBeUndefined();
  });
});
