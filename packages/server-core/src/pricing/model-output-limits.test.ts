import { describe, expect, it } from "vitest";
import { outputLimitOf } from "./model-output-limits.js";

describe("model output limits", () => {
  it("apply to a known model, its dated releases and -latest, routed ids too", () => {
    expect(outputLimitOf("claude-3-5-haiku")).toBe(8_192);
    expect(outputLimitOf("claude-3-5-haiku-20241022")).toBe(8_192);
    expect(outputLimitOf("claude-3-5-haiku-latest")).toBe(8_192);
    expect(outputLimitOf("claude-sonnet-4-5@20250929")).toBe(64_000);
    expect(outputLimitOf("anthropic/claude-opus-4")).toBe(32_000);
    expect(outputLimitOf("gpt-4o-2024-08-06")).toBe(16_384);
  });

  it("never to a newer model that merely shares a prefix (its limit may be larger), nor to an unknown one", () => {
    expect(outputLimitOf("claude-opus-4-6")).toBeUndefined();
    expect(outputLimitOf("claude-opus-4-5-20251101")).toBe(64_000);
    expect(outputLimitOf("gpt-4o-mini-tts")).toBeUndefined();
    expect(outputLimitOf("llama3")).toBeUndefined();
  });
});
