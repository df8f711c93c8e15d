import { describe, expect, it } from "vitest";
import { latencySummary, percentile } from "./percentiles.js";
import { expectationOf, scoreAnswer } from "./quality-score.js";

describe("benchmark scoring", () => {
  it("computes nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect([percentile(values, 0.5), percentile(values, 0.95), percentile(values, 0.99)]).toEqual([50, 95, 99]);
    expect(latencySummary([3, 1, 2])).toEqual({ min: 1, mean: 2, p50: 2, p95: 3, p99: 3, max: 3 });
    expect(latencySummary([])).toBeNull();
  });

  it("reads the expected format and length from the prompt", () => {
    expect(expectationOf("List 5 reasons to use TypeScript")).toMatchObject({ format: "list", items: 5 });
    expect(expectationOf("Return a JSON object with name and age")).toMatchObject({ format: "json" });
    expect(expectationOf("Describe Rust in one sentence")).toMatchObject({ format: "sentence", maxWords: 45 });
  });

  it("scores length, instruction keywords and format adherence", () => {
    expect(scoreAnswer("List 3 primary colors", "- red\n- yellow\n- blue")).toMatchObject({ formatAdherence: 1 });
    expect(scoreAnswer("List 3 primary colors", "- red\n- yellow").formatAdherence).toBeCloseTo(2 / 3, 3);
    expect(scoreAnswer("Return JSON with a name", '{"name": "Ada"}')).toMatchObject({ formatAdherence: 1, instructionKeywords: 1 });
    expect(scoreAnswer("Return JSON with a name", "Sure, the name is Ada").formatAdherence).toBe(0);
    expect(scoreAnswer("Explain photosynthesis", "").overall).toBe(0);
  });
});
