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

  it("frames a custom event identically in SSE and NDJSON", async () => {
    const framed: unknown[] = [];
    for (const format of ["sse", "ndjson"] as const) {
      const { readable, writer } = createWebStreamWriter({ format, keepAliveMs: 0, timestamps: false });
      void writer.writeEvent("progress", { percent: 50 }).then(() => writer.writeDone());
      const text = await readAll(readable);
      const first = format === "sse" ? (/^data: (.*)$/m.exec(text)?.[1] ?? "") : (text.split("\n")[0] ?? "");
      framed.push(JSON.parse(first));
    }
    expect(framed[0]).toEqual({ type: "progress", data: { percent: 50 } });
    expect(framed[1]).toEqual(framed[0]);
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
