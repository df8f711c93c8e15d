import { emptyUsage } from "@conduit-ai/server-core/pricing";
import { describe, expect, it } from "vitest";
import type { TokenUsage } from "../../prices.js";
import { messagesUsageScanner, tapUsage } from "./usage-tap.js";

const STREAM = [
  'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-haiku-4-5","usage":{"input_tokens":10,"cache_read_input_tokens":4,"cache_creation_input_tokens":2,"output_tokens":1}}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"the word \\"usage\\" ✓"}}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join("");

async function run(chunks: Uint8Array[], contentType: string) {
  const seen: Array<{ model: string; usage: TokenUsage }> = [];
  let ended = 0;
  const out: Buffer[] = [];
  async function* source() {
    yield* chunks;
  }
  for await (const chunk of tapUsage(
    source(),
    contentType,
    (model, usage) => seen.push({ model, usage }),
    () => ended++,
  ))
    out.push(Buffer.from(chunk));
  return { seen, ended, bytes: Buffer.concat(out) };
}

describe("tapUsage", () => {
  it("reads stream usage whatever the chunk boundaries, passing bytes unchanged", async () => {
    const bytes = Buffer.from(STREAM);
    for (const size of [1, 3, 7, 64, bytes.byteLength]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.byteLength; at += size) chunks.push(bytes.subarray(at, at + size));
      const result = await run(chunks, "text/event-stream; charset=utf-8");
      expect(result.bytes.equals(bytes)).toBe(true);
      expect(result.ended).toBe(1);
      expect(result.seen).toEqual([
        { model: "claude-haiku-4-5", usage: { ...emptyUsage(), input: 10, output: 42, cacheRead: 4, cacheWrite5m: 2 } },
      ]);
    }
  });

  it("reads a JSON message's usage; an error body counts nothing", async () => {
    const json = Buffer.from(JSON.stringify({ type: "message", model: "m", usage: { input_tokens: 3, output_tokens: 5 } }));
    expect((await run([json.subarray(0, 5), json.subarray(5)], "application/json")).seen).toEqual([
      { model: "m", usage: { ...emptyUsage(), input: 3, output: 5 } },
    ]);
    expect((await run([Buffer.from('{"type":"error","error":{}}')], "application/json")).seen).toEqual([]);
  });
});

describe("messagesUsageScanner on a JSON answer", () => {
  it("keeps the message it parsed for the usage, so the answer is parsed once", () => {
    const message = {
      type: "message",
      model: "claude-haiku-4-5",
      content: [{ type: "text", text: "hi" }],
      usage: { input_tokens: 3, output_tokens: 5 },
    };
    const text = JSON.stringify(message);
    const scanner = messagesUsageScanner("application/json");
    scanner.push(Buffer.from(text.slice(0, 20)));
    scanner.push(Buffer.from(text.slice(20)));
    expect(scanner.parsedBody?.()).toBeUndefined();
    expect(scanner.finish()?.usage).toMatchObject({ input: 3, output: 5 });
    expect(scanner.parsedBody?.()).toEqual({ value: message });
  });

  it("says a body that was no JSON parsed to nothing", () => {
    const scanner = messagesUsageScanner("application/json");
    scanner.push(Buffer.from("{not json"));
    expect(scanner.finish()).toBeUndefined();
    expect(scanner.parsedBody?.()).toEqual({ value: undefined });
  });
});

describe("messagesUsageScanner on a stream whose events are handed over", () => {
  const frames = STREAM.split("\n\n").filter((frame) => frame !== "");
  const dataOf = (frame: string) => frame.slice(frame.indexOf("data: ") + 6);

  it("reads the usage from the events given, and no longer from the bytes pushed", () => {
    const scanner = messagesUsageScanner("text/event-stream");
    const read = scanner.takeEvents?.(() => {});
    expect(read).toBeDefined();
    scanner.push(Buffer.from(STREAM));
    expect(scanner.finish()).toBeUndefined();
    for (const frame of frames) read?.(JSON.parse(dataOf(frame)), dataOf(frame));
    expect(scanner.finish()).toEqual({
      model: "claude-haiku-4-5",
      usage: { ...emptyUsage(), input: 10, output: 42, cacheRead: 4, cacheWrite5m: 2 },
    });
  });

  it("reads only the events whose data mentions usage, as the byte search does", () => {
    const scanner = messagesUsageScanner("text/event-stream");
    const read = scanner.takeEvents?.(() => {});
    const start = { type: "message_start", message: { model: "claude-haiku-4-5" } };
    read?.(start, JSON.stringify(start));
    expect(scanner.finish()).toBeUndefined();
    const bytes = messagesUsageScanner("text/event-stream");
    bytes.push(Buffer.from(`event: message_start\ndata: ${JSON.stringify(start)}\n\n`));
    expect(bytes.finish()).toBeUndefined();
  });

  it("keeps reading the bytes when one was read already (a half-read stream is not handed over)", () => {
    const scanner = messagesUsageScanner("text/event-stream");
    scanner.push(Buffer.from(STREAM.slice(0, 30)));
    expect(scanner.takeEvents?.(() => {})).toBeUndefined();
    scanner.push(Buffer.from(STREAM.slice(30)));
    expect(scanner.finish()?.usage).toMatchObject({ input: 10, output: 42 });
  });
});
