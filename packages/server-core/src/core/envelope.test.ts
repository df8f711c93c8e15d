import { describe, expect, it } from "vitest";
import { successEnvelope, successEnvelopeJson } from "./envelope.js";

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
