import { describe, expect, it } from "vitest";
import { encodeEventStream, negotiateEventStreamFormat } from "./stream-encoding.js";

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
    const stream = encodeEventStream(events(10), {
      format: "sse",
      keepAliveMs: 0,
      signal: controller.signal,
      onAbort: () => seen.push("abort"),
    });
    await stream.next();
    controller.abort();
    expect((await stream.next()).done).toBe(true);
    expect(seen).toEqual(["abort"]);
  });
  it("sends keep-alives only while the source is silent, spaced by the interval", async () => {
    async function* source() {
      // Busy: an event every 5 ms (never silent for the 150 ms interval).
      for (let index = 0; index < 30; index++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        yield { type: "data", data: index };
      }
      // Silent for 700 ms.
      await new Promise((resolve) => setTimeout(resolve, 700));
      yield { type: "finish", data: { reason: "stop" } };
    }
    const chunks: string[] = [];
    for await (const chunk of encodeEventStream(source(), { format: "sse", keepAliveMs: 150, signal: new AbortController().signal }))
      chunks.push(chunk);
    const firstSilentIndex = 30;
    expect(chunks.slice(0, firstSilentIndex).some((chunk) => chunk.startsWith(":"))).toBe(false);
    const keepAlives = chunks.filter((chunk) => chunk === ": keep-alive\n\n").length;
    // 700 ms of silence, a keep-alive after 150–225 ms of it each time (checked every 75 ms).
    expect(keepAlives).toBeGreaterThanOrEqual(2);
    expect(keepAlives).toBeLessThanOrEqual(5);
    expect(chunks.at(-1)).toContain("event: finish");
  });
});

describe("negotiateEventStreamFormat", () => {
  it("lets what the client names win over the route's preference, then falls back to it, then to SSE", () => {
    expect(negotiateEventStreamFormat({}, {})).toBe("sse");
    expect(negotiateEventStreamFormat({}, {}, "ui-message")).toBe("ui-message");
    expect(negotiateEventStreamFormat({}, { format: "sse" }, "ui-message")).toBe("sse");
    expect(negotiateEventStreamFormat({}, { format: "ndjson" }, "ui-message")).toBe("ndjson");
    expect(negotiateEventStreamFormat({ "x-conduit-stream-format": "sse" }, {}, "ui-message")).toBe("sse");
    expect(negotiateEventStreamFormat({ "x-conduit-stream-format": "ui-message" }, { format: "ndjson" })).toBe("ndjson");
    expect(negotiateEventStreamFormat({ accept: "application/x-ndjson" }, {}, "ui-message")).toBe("ndjson");
    // An unknown value names nothing.
    expect(negotiateEventStreamFormat({}, { format: "xml" }, "ui-message")).toBe("ui-message");
  });
});
