import { describe, expect, it } from "vitest";
import { errorBodyJson, lastResortErrorJson, successEnvelope, successEnvelopeJson } from "./envelope.js";

describe("successEnvelopeJson", () => {
  it("is the JSON of successEnvelope, escaping ids and data that need it", () => {
    const started = performance.now();
    for (const [data, requestId] of [
      [{ a: [1, 'x"y\\z'], b: null }, "req-1"],
      ["text", 'custom "id"\n'],
      [null, "req-2"],
      [undefined, "req-3"],
    ] as const) {
      const parsed = JSON.parse(successEnvelopeJson(data, requestId, started));
      const expected = JSON.parse(JSON.stringify(successEnvelope(data ?? null, requestId, started)));
      expect({ ...parsed, metadata: { ...parsed.metadata, duration: 0, timestamp: "" } }).toEqual({
        ...expected,
        metadata: { ...expected.metadata, duration: 0, timestamp: "" },
      });
      expect(typeof parsed.metadata.duration).toBe("number");
    }
  });
});

describe("errorBodyJson", () => {
  const body = (details: unknown) => ({
    error: { code: "X", message: "m", category: "EXECUTION" as const, requestId: "req-1", details },
    metadata: { timestamp: "t", requestId: "req-1" },
  });

  it("drops details that cannot be serialized, then falls back to the constant envelope", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const details of [
      circular,
      { n: 1n },
      {
        toJSON: () => {
          throw new Error("no");
        },
      },
    ]) {
      const parsed = JSON.parse(errorBodyJson(body(details)));
      expect(parsed.error).toEqual({ code: "X", message: "m", category: "EXECUTION", requestId: "req-1" });
    }
    const hostileMessage = {
      ...body(undefined),
      error: {
        ...body(undefined).error,
        message: {
          toString: () => {
            throw new Error("no");
          },
        } as never,
        details: 1n,
      },
    };
    expect(JSON.parse(errorBodyJson(hostileMessage)).error.code).toBe("HANDLER_ERROR");
  });

  it("builds the last resort from constants, never echoing an unsafe request id", () => {
    expect(JSON.parse(lastResortErrorJson("req-ok")).error).toMatchObject({ code: "HANDLER_ERROR", requestId: "req-ok" });
    expect(JSON.parse(lastResortErrorJson('bad"id')).metadata.requestId).toBe("unknown");
  });
});
