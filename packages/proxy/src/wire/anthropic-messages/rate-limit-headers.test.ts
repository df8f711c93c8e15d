import { describe, expect, it } from "vitest";
import { MAX_COOLDOWN_MS, parseRateLimitHeaders, rateLimitResetAt } from "./rate-limit-headers.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");

describe("rate-limit headers", () => {
  it("groups standard and unified headers by limit", () => {
    const quota = parseRateLimitHeaders(
      {
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-input-tokens-reset": "2026-01-01T00:01:00Z",
        "anthropic-ratelimit-unified-status": "allowed_warning",
        "anthropic-ratelimit-unified-7d-utilization": "0.91",
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
        "content-type": "application/json",
      },
      NOW,
    );
    expect(quota).toEqual({
      updatedAt: NOW,
      limits: {
        requests: { remaining: "0" },
        "input-tokens": { reset: "2026-01-01T00:01:00Z" },
        unified: { status: "allowed_warning" },
        "unified-7d": { utilization: "0.91" },
        "unified-representative-claim": { value: "five_hour" },
      },
    });
    expect(parseRateLimitHeaders({ "content-type": "text/plain" }, NOW)).toBeUndefined();
  });

  it("takes retry-after first (seconds or a date), then the exhausted limit's reset, capped at 7 days", () => {
    expect(rateLimitResetAt({ "retry-after": "30", "anthropic-ratelimit-requests-reset": "2026-01-01T01:00:00Z" }, NOW)).toBe(NOW + 30_000);
    expect(rateLimitResetAt({ "retry-after": "Thu, 01 Jan 2026 00:02:00 GMT" }, NOW)).toBe(NOW + 120_000);
    expect(
      rateLimitResetAt(
        {
          "anthropic-ratelimit-requests-remaining": "0",
          "anthropic-ratelimit-requests-reset": "2026-01-01T00:05:00Z",
          "anthropic-ratelimit-tokens-remaining": "5000",
          "anthropic-ratelimit-tokens-reset": "2026-01-01T00:09:00Z",
        },
        NOW,
      ),
    ).toBe(NOW + 5 * 60_000);
    expect(rateLimitResetAt({ "anthropic-ratelimit-unified-reset": String(NOW / 1000 + 30 * 86_400) }, NOW)).toBe(NOW + MAX_COOLDOWN_MS);
    expect(rateLimitResetAt({}, NOW)).toBeUndefined();
    // A reset in the past still means "now", never a negative cooldown.
    expect(rateLimitResetAt({ "anthropic-ratelimit-unified-reset": String(NOW / 1000 - 10) }, NOW)).toBe(NOW);
  });
});
