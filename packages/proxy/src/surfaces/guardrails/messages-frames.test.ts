import { createGuardrails } from "@conduit-ai/guardrails";
import { describe, expect, it } from "vitest";
import type { CallGuard } from "../../admission/call-guard.js";
import { guardedMessagesBytes } from "./messages-frames.js";

const frame = (event: Record<string, unknown>) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
const delta = (text: string) => frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
const stream = (texts: string[]) =>
  frame({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [], model: "m" } }) +
  frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
  texts.map(delta).join("") +
  frame({ type: "content_block_stop", index: 0 }) +
  frame({ type: "message_stop" });

const set = createGuardrails({
  rules: [
    { name: "pii", kind: "pii", action: "mask", on: "response" },
    { name: "secrets", kind: "secrets", action: "mask", on: "response" },
  ],
  default: ["pii", "secrets"],
  window: 64,
}).select();
const recorded: string[] = [];
const guard = { set, context: {}, record: (hits) => recorded.push(...hits.map((hit) => hit.entity)) } as CallGuard;

/** The guarded bytes of `sse` sent in chunks of `size` bytes, and how many chunks came out. */
async function relay(sse: string, size: number): Promise<{ text: string; chunks: Uint8Array[] }> {
  const bytes = Buffer.from(sse);
  async function* body() {
    for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
  }
  const chunks: Uint8Array[] = [];
  for await (const chunk of guardedMessagesBytes(body(), guard)) chunks.push(chunk);
  return { text: Buffer.concat(chunks).toString("utf8"), chunks };
}

// Escaped text (a quote, a backslash, a line break) is parsed in full; the rest is read from the bytes.
const prose = Array.from({ length: 20 }, (_, index) =>
  index % 7 === 3 ? ` he said "hi" in C:\\temp\n${index}` : ` lorem ipsum dolor sit amet — ü ${"x".repeat(index)},`,
);

describe("guardedMessagesBytes", () => {
  it("sends a stream nothing matched byte for byte, whatever the chunking (multi-byte characters cut included)", async () => {
    const sse = stream(prose);
    for (const size of [1, 7, 100, 1 << 16]) expect((await relay(sse, size)).text, `chunks of ${size}`).toBe(sse);
  });

  it("sends an unchanged frame that came alone as the bytes upstream sent, not a copy", async () => {
    const frames = stream(prose)
      .split(/(?<=\n\n)/)
      .map((part) => new Uint8Array(Buffer.from(part)));
    async function* body() {
      yield* frames;
    }
    const sent: Uint8Array[] = [];
    for await (const chunk of guardedMessagesBytes(body(), guard)) sent.push(chunk);
    // message_start and content_block_start go out at once, uncopied; so does every delta the window
    // passed alone (a few leave together, copied once, and the last ones with content_block_stop).
    for (let index = 0; index < 2; index++) expect(sent[index]?.buffer, `event ${index}`).toBe(frames[index]?.buffer);
    const uncopied = sent.filter((chunk) => frames.some((frame) => frame.buffer === chunk.buffer));
    expect(uncopied.length).toBeGreaterThanOrEqual(frames.length - 8);
    expect(Buffer.concat(sent).toString()).toBe(stream(prose));
  });

  it("sends the events of one chunk that nothing changed as one view of that chunk, not a copy", async () => {
    const chunk = new Uint8Array(Buffer.from(stream(prose.filter((text) => !text.includes("\\")))));
    async function* body() {
      yield chunk;
    }
    const sent: Uint8Array[] = [];
    for await (const part of guardedMessagesBytes(body(), guard)) sent.push(part);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.buffer).toBe(chunk.buffer);
    expect(Buffer.from(sent[0] as Uint8Array).equals(chunk)).toBe(true);
  });

  it("masks a secret and an email split across events, the other events kept as they came", async () => {
    const secret = "AKIAIOSFODNN7EXAMPLE";
    const texts = [...prose.slice(0, 5), " key AKIAIOSF", "ODNN7EXAMPLE mail ada@exa", "mple.com ok", ...prose.slice(5)];
    const { text } = await relay(stream(texts), 50);
    expect(text).not.toContain(secret.slice(4));
    expect(text).not.toContain("ada@");
    const events = text
      .split("\n\n")
      .filter((part) => part.startsWith("event: content_block_delta"))
      .map((part) => JSON.parse(part.slice(part.indexOf("data: ") + 6)).delta.text as string);
    expect(events.join("")).toBe(texts.join("").replace(secret, "[AWS_ACCESS_KEY]").replace("ada@example.com", "[EMAIL]"));
    for (const kept of [...prose.slice(0, 4), ...prose.slice(6, 19)]) expect(text).toContain(delta(kept));
    expect(recorded).toEqual(expect.arrayContaining(["aws-access-key", "email"]));
  });

  it("masks a key whose hint is split so that the later event holds no hint character", async () => {
    // `A` | `IzaSy…`: the second event's text, tested in its bytes, holds no hint character; the
    // scanner still joins it to the `A` just before it.
    const key = "AIzaSyDbcdefghiklmnopqrstuvyzbcdefghikm";
    for (const size of [40, 1 << 16]) {
      const texts = [...prose.slice(0, 4), " key A", `${key.slice(1)} ok`, ...prose.slice(4, 6)];
      const { text } = await relay(stream(texts), size);
      const sent = text
        .split("\n\n")
        .filter((part) => part.startsWith("event: content_block_delta"))
        .map((part) => JSON.parse(part.slice(part.indexOf("data: ") + 6)).delta.text as string);
      expect(sent.join(""), `chunks of ${size}`).toBe(texts.join("").replace(key, "[GOOGLE_API_KEY]"));
    }
  });

  it("reads upstream's body to its end after a complete answer, and cancels it when a guardrail blocks", async () => {
    const blocking = createGuardrails({
      rules: [{ name: "secrets", kind: "secrets", action: "block", on: "response" }],
      default: ["secrets"],
    }).select();
    const cases = [
      { guard, texts: prose, cancelled: false },
      {
        guard: { ...guard, set: blocking } as CallGuard,
        texts: [...prose.slice(0, 3), " AKIAIOSFODNN7EXAMPLE", ...prose.slice(3)],
        cancelled: true,
      },
    ];
    for (const { guard: used, texts, cancelled } of cases) {
      // Upstream's body: the answer, then the end of the body (an HTTP client's last, empty read).
      const chunks = [Buffer.from(stream(texts)), Buffer.alloc(0)];
      let read = 0;
      let returned = false;
      const body: AsyncIterable<Uint8Array> = {
        [Symbol.asyncIterator]: () => ({
          next: async () => (read < chunks.length ? { done: false, value: chunks[read++] as Buffer } : { done: true, value: undefined }),
          return: async () => {
            returned = true;
            return { done: true, value: undefined };
          },
        }),
      };
      const sent: Uint8Array[] = [];
      for await (const chunk of guardedMessagesBytes(body, used)) sent.push(chunk);
      expect(returned, `cancelled: ${cancelled}`).toBe(cancelled);
      expect(read).toBe(cancelled ? 1 : chunks.length);
      expect(Buffer.concat(sent).toString()).toContain(cancelled ? "guardrail_violation" : "event: message_stop");
    }
  });

  it("reads CRLF line ends", async () => {
    const sse = stream(prose).replace(/\n/g, "\r\n");
    const { text } = await relay(sse, 33);
    expect(text.replace(/\r\n/g, "\n")).toContain(delta(prose[3] as string));
    expect(text).toContain("event: message_stop");
  });

  it("ends a malformed or cut stream with upstream_stream_error", async () => {
    const malformed = await relay(`${stream(prose).slice(0, 300)}\n\nevent: content_block_delta\ndata: {oops\n\n`, 64);
    expect(malformed.text).toContain('"type":"upstream_stream_error"');
    const cut = await relay(stream(prose).slice(0, 500), 64);
    expect(cut.text).toContain("The upstream stream ended before the message finished");
  });
});
