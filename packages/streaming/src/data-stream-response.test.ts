import type { DataStreamEvent } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { createStreamResponse } from "./data-stream-response.js";

async function collect(iterable: AsyncIterable<DataStreamEvent>): Promise<DataStreamEvent[]> {
  const events: DataStreamEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe("DataStreamResponse", () => {
  it("writes every event kind in order with timestamps", async () => {
    const stream = createStreamResponse({
      execute: async (writer) => {
        await writer.writeTextStart("t1");
        await writer.writeTextDelta("t1", "Hel");
        await writer.writeTextDelta("t1", "lo");
        await writer.writeTextEnd("t1");
        await writer.writeToolCall({ id: "c1", name: "clock", arguments: { zone: "UTC" } });
        await writer.writeToolResult({ id: "c1", name: "clock", result: { time: "noon" } });
        await writer.writeData({ step: 1 });
        await writer.finish({ reason: "stop", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } });
      },
    });
    const events = await collect(stream.toIterable());
    expect(events.map((event) => event.type)).toEqual([
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "tool-call",
      "tool-result",
      "data",
      "finish",
    ]);
    expect(events[1]).toMatchObject({ id: "t1", data: { delta: "Hel" } });
    expect(events[4]).toMatchObject({ id: "c1", data: { id: "c1", name: "clock", arguments: { zone: "UTC" } } });
    expect(events[5]?.data).toEqual({ id: "c1", name: "clock", result: { time: "noon" } });
    expect(events[7]?.data).toEqual({ reason: "stop", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } });
    for (const event of events) expect(event.timestamp).toBeGreaterThan(Date.now() - 5000);
    expect(stream.isClosed()).toBe(true);
  });

  it("leaves timestamps out when disabled", async () => {
    const stream = createStreamResponse({ timestamps: false, execute: (writer) => writer.writeData(1) });
    const [event] = await collect(stream);
    expect(event).toEqual({ type: "data", data: 1 });
  });

  it("writes after close are no-ops and never throw", async () => {
    const stream = createStreamResponse();
    stream.close();
    await expect(stream.writeTextDelta("t", "late")).resolves.toBeUndefined();
    await expect(stream.writeError({ message: "late" })).resolves.toBeUndefined();
    await expect(stream.finish()).resolves.toBeUndefined();
    expect(await collect(stream)).toEqual([]);
  });

  it("writeError sends the message and optional code", async () => {
    const stream = createStreamResponse({
      execute: async (writer) => {
        await writer.writeError({ message: "upstream failed", code: "PROVIDER_ERROR" });
        writer.close();
      },
    });
    expect((await collect(stream))[0]).toMatchObject({ type: "error", data: { message: "upstream failed", code: "PROVIDER_ERROR" } });
  });

  it("a throwing executor fails the iteration (the core turns it into an error event)", async () => {
    const stream = createStreamResponse({
      execute: async (writer) => {
        await writer.writeData(1);
        throw new Error("boom");
      },
    });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "data" });
    await expect(iterator.next()).rejects.toThrow("boom");
  });

  it("an aborted signal closes the writer and releases a blocked write", async () => {
    const controller = new AbortController();
    const stream = createStreamResponse({ signal: controller.signal });
    const blocked = stream.writeData("never pulled");
    controller.abort();
    await expect(blocked).resolves.toBeUndefined();
    expect(stream.isClosed()).toBe(true);
  });

  it("the consumer stopping early closes the writer", async () => {
    let writesAfterStop = 0;
    const stream = createStreamResponse({
      execute: async (writer) => {
        for (let index = 0; index < 100; index++) {
          await writer.writeData(index);
          if (writer.isClosed()) writesAfterStop++;
        }
      },
    });
    for await (const event of stream) if (event.data === 2) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stream.isClosed()).toBe(true);
    expect(writesAfterStop).toBeGreaterThan(0);
  });

  it("encode() produces SSE frames with the final finish guaranteed", async () => {
    const stream = createStreamResponse({ keepAliveMs: 0, execute: (writer) => writer.writeData({ a: 1 }) });
    let text = "";
    for await (const chunk of stream.encode("sse")) text += chunk;
    expect(text).toMatch(/^event: data\ndata: \{"type":"data","timestamp":\d+,"data":\{"a":1\}\}\n\n/);
    expect(text).toMatch(/event: finish\ndata: .*"reason":"stop"/);
  });

  it("encode('ndjson') produces one JSON object per line", async () => {
    const stream = createStreamResponse({ keepAliveMs: 0, execute: (writer) => writer.finish({ reason: "length" }) });
    let text = "";
    for await (const chunk of stream.encode("ndjson")) text += chunk;
    const lines = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([{ type: "finish", timestamp: expect.any(Number), data: { reason: "length" } }]);
  });
});
