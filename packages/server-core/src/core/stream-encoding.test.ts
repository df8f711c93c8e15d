import { describe, expect, it } from "vitest";
import { encodeEventStream } from "./stream-encoding.js";

async function* events(count: number) {
  for (let index = 0; index < count; index++) yield { type: "data", timestamp: 1, data: { token: "t", index } };
}

describe("encodeEventStream hooks", () => {
  it("applies transformEvent to every event, the synthesized finish included, and reports completion", async () => {
    const seen: string[] = [];
    const chunks: string[] = [];
    for await (const chunk of encodeEventStream(events(2), {
      format: "ndjson",
      keepAliveMs: 0,
      signal: new AbortController().signal,
      transformEvent: (event) => ({ ...event, id: "x" }),
      onAbort: () => seen.push("abort"),
      onComplete: () => seen.push("complete"),
    }))
      chunks.push(chunk);
    expect(chunks.map((chunk) => JSON.parse(chunk).id)).toEqual(["x", "x", "x"]);
    expect(JSON.parse(chunks[2] ?? "").type).toBe("finish");
    expect(seen).toEqual(["complete"]);
  });

  it("reports an abort when the consumer stops before the last event", async () => {
    const seen: string[] = [];
    const stream = encodeEventStream(events(10), {
      format: "sse",
      keepAliveMs: 0,
      signal: new AbortController().signal,
      onAbort: () => seen.push("abort"),
      onComplete: () => seen.push("complete"),
    });
    await stream.next();
    await stream.return(undefined);
    expect(seen).toEqual(["abort"]);
  });

  it("reports an abort when the signal fires", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const stream = encodeEventStream(events(10), { format: "sse", keepAliveMs: 0, signal: controller.signal, onAbort: () => seen.push("abort") });
    await stream.next();
    controller.abort();
    expect((await stream.next()).done).toBe(true);
    expect(seen).toEqual(["abort"]);
  });
});
