import { describe, expect, it } from "vitest";
import type { GuardrailRule } from "./config-schema.js";
import { createGuardrails } from "./guardrails.js";
import { type MatchRule, hintsUnionOf } from "./match-rules.js";

/** The match rules of a set of `pii` and `secrets` rules (their request side). */
function matchRulesOf(rules: readonly Partial<GuardrailRule>[]): MatchRule[] {
  const set = createGuardrails({ rules: rules as never, default: rules.map((rule) => rule.name as string) }).select();
  return (set as unknown as { request: { match: MatchRule[] } }).request.match;
}

/** The plain union: every hint an alternative of its own. */
function plainUnionOf(rules: readonly MatchRule[]): RegExp {
  const hints = rules.flatMap((rule) => rule.detectors.map((detector) => detector.hint as RegExp));
  const flags = hints.some((hint) => hint.flags.includes("i")) ? "i" : "";
  return new RegExp(hints.map((hint) => `(?:${hint.source})`).join("|"), flags);
}

describe("hintsUnionOf", () => {
  it("tests every text as the plain union of the hints does (character-set hints joined, the hints they cover left out)", () => {
    const alphabet = "aAwWsS0123+:@-_.xoeyJkKIglpzt B";
    const texts = ["The quarterly report shows steady growth in the northern region, with costs under plan."];
    for (const a of alphabet) {
      texts.push(a);
      for (const b of alphabet) {
        texts.push(a + b);
        for (const c of alphabet) texts.push(`x${a}${b}${c}`);
      }
    }
    texts.push("AKIA", "akia", "AIza", "ghp_", "github_pat_", "glpat-", "xapp", "sk-ant-", "sk-conduit-", "-----BEGIN", "eyJ", "AB12");
    const sets = [
      [
        { name: "pii", kind: "pii" },
        { name: "secrets", kind: "secrets" },
      ],
      [{ name: "pii", kind: "pii", entities: ["phone", "iban"] }],
      [{ name: "secrets", kind: "secrets", types: ["aws-secret-key", "jwt"] }],
      [{ name: "pii", kind: "pii", entities: ["email", "credit-card"] }],
    ] as const;
    for (const rules of sets) {
      const match = matchRulesOf(rules as never);
      const union = hintsUnionOf(match) as RegExp;
      const plain = plainUnionOf(match);
      const differing = texts.filter((text) => union.test(text) !== plain.test(text));
      expect(differing, union.source).toEqual([]);
    }
    // pii and secrets: digits, `@` and `:` are one class, and the hints made of digits are left out.
    const both = hintsUnionOf(matchRulesOf(sets[0] as never)) as RegExp;
    expect(both.source).not.toContain("\\d{3}");
    expect(both.source.split("|").length).toBeLessThan(plainUnionOf(matchRulesOf(sets[0] as never)).source.split("|").length);
  });
});
