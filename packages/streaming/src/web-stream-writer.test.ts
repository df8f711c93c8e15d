import { createParser, type EventSourceMessage } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { addStreamEventTransform, createStreamRedactor } from "@conduit-ai/server-core/web";
import { createWebStreamWriter } from "./web-stream-writer.js";

async function readAll(readable: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(readable).text();
}

describe("createWebStreamWriter", () => {
  it("streams SSE events, custom events and a final finish from writeDone", async () => {
    const { readable, writer } = createWebStreamWriter({ keepAliveMs: 0, retry: 2000 });
    void (async () => {
      await writer.writeTextStart("t1");
      await writer.writeTextDelta("t1", "line1\nline2");
      await writer.writeEvent("progress", { percent: 50 });
      await writer.writeDone();
      await writer.writeData("after done");
    })();
    const events: EventSourceMessage[] = [];
    const retries: number[] = [];
    createParser({ onEvent: (event) => events.push(event), onRetry: (retry) => retries.push(retry) }).feed(await readAll(readable));
    expect(retries).toEqual([2000]);
    expect(events.map((event) => event.event)).toEqual(["text-start", "text-delta", "progress", "finish"]);
    expect(JSON.parse(events[1]?.data ?? "").data.delta).toBe("line1\nline2");
    // A custom event is framed like every other: `data:` is the whole event, as in NDJSON.
    expect(JSON.parse(events[2]?.data ?? "")).toEqual({ type: "progress", timestamp: expect.any(Number), data: { percent: 50 } });
    expect(JSON.parse(events[3]?.data ?? "").data).toEqual({ reason: "stop" });
    expect(writer.isClosed()).toBe(true);
  });

  it("streams NDJSON lines", async () => {
    const { readable, writer } = createWebStreamWriter({ format: "ndjson", keepAliveMs: 0 });
    void (async () => {
      await writer.writeEvent("custom", [1, 2]);
      await writer.finish({ reason: "stop" });
    })();
    const lines = (await readAll(readable))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.type)).toEqual(["custom", "finish"]);
    expect(lines[0].data).toEqual([1, 2]);
  });

  it("carries the same events in SSE and NDJSON: the SSE data is the NDJSON line, event and id name its type and id", async () => {
    const write = async (writer: ReturnType<typeof createWebStreamWriter>["writer"]) => {
      await writer.writeTextStart("t1");
      await writer.writeTextDelta("t1", "two\nlines");
      await writer.writeTextEnd("t1");
      await writer.writeToolCall({ id: "c1", name: "clock", arguments: { zone: "UTC" } });
      await writer.writeToolResult({ id: "c1", name: "clock", result: { time: "noon" } });
      await writer.writeEvent("progress", { percent: 50 });
      await writer.writeEvent("empty", undefined);
      await writer.writeData([1, "x"]);
      await writer.writeError({ message: "late", code: "E_LATE" });
      await writer.finish({ reason: "stop" });
    };
    const sse = createWebStreamWriter({ format: "sse", keepAliveMs: 0, timestamps: false });
    const ndjson = createWebStreamWriter({ format: "ndjson", keepAliveMs: 0, timestamps: false });
    void write(sse.writer);
    void write(ndjson.writer);
    const [sseText, ndjsonText] = await Promise.all([readAll(sse.readable), readAll(ndjson.readable)]);
    const frames: EventSourceMessage[] = [];
    createParser({ onEvent: (event) => frames.push(event) }).feed(sseText);
    const lines = ndjsonText
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(frames.map((frame) => JSON.parse(frame.data))).toEqual(lines);
    expect(frames.map((frame) => frame.event)).toEqual(lines.map((line) => line.type));
    expect(frames.map((frame) => frame.id)).toEqual(lines.map((line) => line.id));
    expect(lines).toContainEqual({ type: "progress", data: { percent: 50 } });
    expect(lines).toContainEqual({ type: "empty", data: null });
    expect(lines.at(-1)).toEqual({ type: "finish", data: { reason: "stop" } });
  });

  it("applies the request's stream transforms (redaction) when given the context", async () => {
    const context = { state: {} as Record<string, unknown> };
    const redactor = createStreamRedactor({ enabled: true });
    if (redactor) addStreamEventTransform(context, redactor);
    const { readable, writer } = createWebStreamWriter({ format: "ndjson", keepAliveMs: 0, context });
    void (async () => {
      await writer.writeData({ apiKey: "sk-live-123", visible: "yes" });
      await writer.writeEvent("progress", { token: "t-456" });
      await writer.writeDone();
    })();
    const text = await readAll(readable);
    expect(text).not.toContain("sk-live-123");
    expect(text).not.toContain("t-456");
    const lines = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0].data).toEqual({ apiKey: "[REDACTED]", visible: "yes" });
  });

  it("sends no retry field for an invalid retry, and none in NDJSON", async () => {
    for (const options of [{ retry: -1 }, { retry: 1.5 }, { retry: 3000, format: "ndjson" as const }]) {
      const { readable, writer } = createWebStreamWriter({ keepAliveMs: 0, ...options });
      void writer.writeDone();
      const text = await readAll(readable);
      expect(text).not.toContain("retry");
      expect(text.startsWith(options.format === "ndjson" ? "{" : "event: finish\n")).toBe(true);
    }
  });

  it("sends keep-alive comments while idle", async () => {
    const { readable, writer } = createWebStreamWriter({ keepAliveMs: 20 });
    setTimeout(() => void writer.writeDone(), 120);
    expect(await readAll(readable)).toContain(": keep-alive\n\n");
  });

  it("applies backpressure: writes wait for the reader, cancel closes the writer", async () => {
    const { readable, writer } = createWebStreamWriter({ keepAliveMs: 0 });
    let written = 0;
    const producer = (async () => {
      for (let index = 0; index < 1000 && !writer.isClosed(); index++) {
        await writer.writeData("x".repeat(1024));
        written++;
      }
    })();
    const reader = readable.getReader();
    await reader.read();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(written).toBeLessThanOrEqual(3);
    await reader.cancel();
    await producer;
    expect(writer.isClosed()).toBe(true);
  });
});
