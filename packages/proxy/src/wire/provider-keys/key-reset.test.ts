import { describe, expect, it } from "vitest";
import { DEFAULT_KEY_COOLDOWN_MS, keyResetAt } from "./key-reset.js";

const NOW = 1_800_000_000_000;

describe("keyResetAt", () => {
  it("reads retry-after seconds and retry-after-ms", () => {
    expect(keyResetAt(new Headers({ "retry-after": "7" }), NOW)).toBe(NOW + 7000);
    expect(keyResetAt(new Headers({ "retry-after-ms": "1500" }), NOW)).toBe(NOW + 1500);
  });

  it("reads OpenAI and Groq reset durations, the later of requests and tokens", () => {
    expect(keyResetAt(new Headers({ "x-ratelimit-reset-requests": "6m0s", "x-ratelimit-reset-tokens": "2.5s" }), NOW)).toBe(NOW + 360_000);
    expect(keyResetAt(new Headers({ "x-ratelimit-reset-tokens": "20ms" }), NOW)).toBe(NOW + 20);
  });

  it("reads Anthropic's reset times", () => {
    const reset = new Date(NOW + 42_000).toISOString();
    expect(
      keyResetAt(new Headers({ "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": reset }), NOW),
    ).toBe(NOW + 42_000);
  });

  it("cools a minute when nothing names the reset, and ignores what it cannot read", () => {
    expect(keyResetAt(new Headers(), NOW)).toBe(NOW + DEFAULT_KEY_COOLDOWN_MS);
    expect(keyResetAt(new Headers({ "x-ratelimit-reset-requests": "soon" }), NOW)).toBe(NOW + DEFAULT_KEY_COOLDOWN_MS);
    expect(keyResetAt(undefined, NOW)).toBe(NOW + DEFAULT_KEY_COOLDOWN_MS);
  });
});
