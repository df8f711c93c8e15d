import { describe, expect, it } from "vitest";
import { guardrailHitLabel, guardrailHitsOf } from "../app/src/components/guardrail-hits.js";

// The Live page shows every guardrail hit of a finished request from the feed's
// `name:action:direction:entity` strings: what was found and done, never the text itself.

describe("the Live page's guardrail hits", () => {
  it("counts a repeated hit once with its number, keeping each distinct hit in order", () => {
    const hits = guardrailHitsOf([
      "pii:mask:request:email",
      "no-secrets:block:response:aws-access-key",
      "pii:mask:request:email",
      "pii:mask:response:email",
    ]);
    expect(hits).toEqual([
      { guardrail: "pii", action: "mask", direction: "request", entity: "email", count: 2 },
      { guardrail: "no-secrets", action: "block", direction: "response", entity: "aws-access-key", count: 1 },
      { guardrail: "pii", action: "mask", direction: "response", entity: "email", count: 1 },
    ]);
    expect(hits.map(guardrailHitLabel)).toEqual([
      "pii masked email (request) ×2",
      "no-secrets blocked aws-access-key (response)",
      "pii masked email (response)",
    ]);
  });

  it("shows a log rule as logged, and nothing for a request without hits", () => {
    expect(guardrailHitsOf(["audit:log:request:webhook"]).map(guardrailHitLabel)).toEqual(["audit logged webhook (request)"]);
    expect(guardrailHitsOf(undefined)).toEqual([]);
  });
});
