import { describe, expect, it } from "vitest";
import { createGuardrails } from "./guardrails.js";
import type { StreamScanner } from "./stream-scanner.js";

const maskRules = createGuardrails({
  rules: [
    { name: "pii", kind: "pii", action: "mask", on: "response" },
    { name: "secrets", kind: "secrets", action: "mask", on: "response" },
  ],
  default: ["pii", "secrets"],
  window: 64,
}).select();
const blockRules = createGuardrails({
  rules: [{ name: "secrets", kind: "secrets", action: "block", on: "response" }],
  default: ["secrets"],
  window: 64,
}).select();

/** Feeds the deltas, returns what the client would have received, and the block if any. */
function run(scanner: StreamScanner, deltas: string[]) {
  let sent = "";
  let maxHeld = 0;
  for (const delta of deltas) {
    const step = scanner.push(delta);
    sent += step.text;
    maxHeld = Math.max(maxHeld, scanner.heldLength);
    if (step.block) return { sent, block: step.block, maxHeld };
  }
  const end = scanner.flush();
  return { sent: sent + end.text, block: end.block, maxHeld };
}

const secret = "AKIAIOSFODNN7EXAMPLE";
const email = "grace.hopper@example.com";
const text = `Here is the key ${secret} and mail ${email} — thanks.`;
const expected = "Here is the key [AWS_ACCESS_KEY] and mail [EMAIL] — thanks.";

describe("StreamScanner", () => {
  it("masks a secret and an email split into two deltas at every offset", () => {
    for (let offset = 0; offset <= text.length; offset++) {
      const scanner = maskRules?.streamScanner() as StreamScanner;
      const { sent } = run(scanner, [text.slice(0, offset), text.slice(offset)]);
      expect(sent, `split at ${offset}`).toBe(expected);
    }
  });

  it("masks them when every character is its own delta, holding back at most the window", () => {
    const scanner = maskRules?.streamScanner() as StreamScanner;
    const padded = `${"lorem ipsum ".repeat(20)}${text}${" dolor".repeat(30)}`;
    const { sent, maxHeld } = run(scanner, [...padded]);
    expect(sent).toBe(`${"lorem ipsum ".repeat(20)}${expected}${" dolor".repeat(30)}`);
    expect(maxHeld).toBeLessThanOrEqual(64);
  });

  it("releases text beyond the window at once", () => {
    const scanner = maskRules?.streamScanner() as StreamScanner;
    const first = scanner.push("a".repeat(100));
    expect(first.text).toBe("a".repeat(36));
    expect(scanner.heldLength).toBe(64);
  });

  it("blocks before any part of a split secret was sent, at every offset", () => {
    for (let offset = 0; offset <= text.length; offset++) {
      const scanner = blockRules?.streamScanner() as StreamScanner;
      const { sent, block } = run(scanner, [text.slice(0, offset), text.slice(offset)]);
      expect(block, `split at ${offset}`).toMatchObject({ guardrail: "secrets", entity: "aws-access-key", action: "block" });
      expect(sent).not.toContain("AKIA");
      expect("Here is the key ".startsWith(sent)).toBe(true);
    }
  });

  it("masks a private key block longer than the window until its END line", () => {
    const body = Array.from({ length: 20 }, (_, index) => `MIIEpAIBAAKCAQEA7bq98S1yR0b1kzL${index}`).join("\n");
    const pem = `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----`;
    const full = `key:\n${pem}\nafter`;
    for (const size of [1, 7, 50]) {
      const deltas = full.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];
      const { sent } = run(maskRules?.streamScanner() as StreamScanner, deltas);
      expect(sent, `deltas of ${size}`).toBe("key:\n[PRIVATE_KEY]\nafter");
    }
  });

  it("does not take a number cut by the window for a card or a phone", () => {
    const digits = `${"x".repeat(70)} order 20261207-1234-5678-9012 done ${"y".repeat(70)}`;
    const { sent } = run(maskRules?.streamScanner() as StreamScanner, digits.match(/[\s\S]{1,5}/g) ?? []);
    expect(sent).toBe(digits);
  });

  it("aligned to deltas: masks a split secret and email at every offset, releasing unchanged deltas whole", () => {
    for (let offset = 0; offset <= text.length; offset++) {
      const scanner = maskRules?.streamScanner({ alignToDeltas: true }) as StreamScanner;
      const deltas = ["lorem ipsum ".repeat(8), text.slice(0, offset), text.slice(offset), " dolor".repeat(20)];
      let sent = "";
      let consumed = 0;
      for (const delta of deltas) {
        const step = delta === "" ? { text: "", consumed: 0, verbatim: true } : scanner.push(delta);
        sent += step.text;
        consumed += step.consumed;
      }
      const end = scanner.flush();
      expect(sent + end.text, `split at ${offset}`).toBe(`${"lorem ipsum ".repeat(8)}${expected}${" dolor".repeat(20)}`);
      expect(consumed + end.consumed).toBe(deltas.join("").length);
    }
  });

  it("aligned to deltas: prose goes out as whole deltas, verbatim, once the window follows them", () => {
    const scanner = maskRules?.streamScanner({ alignToDeltas: true }) as StreamScanner;
    const delta = " lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do";
    const steps = Array.from({ length: 6 }, () => scanner.push(delta));
    // Window 64: a delta is released once 64 characters follow it, never a part of one.
    expect(steps.map((step) => step.consumed)).toEqual([0, delta.length, delta.length, delta.length, delta.length, delta.length]);
    expect(steps.every((step) => step.verbatim && step.text.length === step.consumed)).toBe(true);
    const masked = scanner.push(" mail ada@example.com now");
    const end = scanner.flush();
    expect(masked.verbatim || end.verbatim).toBe(true);
    expect(`${masked.text}${end.text}`).toContain("[EMAIL]");
    expect(end.verbatim && masked.verbatim).toBe(false);
  });

  it("has no scanner when no response rule matches text", () => {
    const requestOnly = createGuardrails({ rules: [{ name: "p", kind: "pii", on: "request" }], default: ["p"] }).select();
    expect(requestOnly?.streamScanner()).toBeUndefined();
    expect(requestOnly?.checks("response")).toBe(false);
  });
});

describe("hint characters", () => {
  it("every built-in detector names characters that any match of its hint contains", async () => {
    const { piiDetectorsOf } = await import("./detectors/pii.js");
    const { secretDetectorsOf } = await import("./detectors/secrets.js");
    const samples = ["a@b", "+1", "123", "07", "DE89", "1-2", "1.2", "::1", "AKIA", "ASCA", "aws", "AwS", "ghp_", "github_pat_"];
    samples.push("glpat-", "xoxb", "xapp", "sk-ant-", "sk-", "AIza", "sk-conduit-", "-----BEGIN", "eyJ", "plain prose, nothing else");
    for (const detector of [...piiDetectorsOf(), ...secretDetectorsOf()]) {
      expect(detector.hintChars, detector.entity).toBeTruthy();
      for (const sample of samples)
        if (detector.hint?.test(sample))
          expect(
            [...sample].some((char) => detector.hintChars?.includes(char)),
            `${detector.entity}: ${sample}`,
          ).toBe(true);
    }
  });
});
