import { describe, expect, it } from "vitest";
import { type ReconcileRow, overThreshold, signedNumber, signedUsd, utcDay } from "../app/src/components/reconcile-rows.js";

// The Reconciliation page paints a row red when its dollar drift passes the threshold, and always
// when one side has nothing for the day (a silent vendor is drift, whatever the amount).

const row = (status: ReconcileRow["status"], usd: number, tokens = 0): Pick<ReconcileRow, "drift" | "status"> => ({
  status,
  drift: { inputTokens: tokens, outputTokens: 0, tokens, usd },
});

describe("the Reconciliation page's rows", () => {
  it("red above the threshold, either direction; never for a match within it", () => {
    expect(overThreshold(row("match", 0), 0.01)).toBe(false);
    expect(overThreshold(row("drift", 0.01), 0.01)).toBe(false);
    expect(overThreshold(row("drift", 0.010001), 0.01)).toBe(true);
    expect(overThreshold(row("drift", -0.5), 0.01)).toBe(true);
    expect(overThreshold(row("drift", 0.000001, 3), 0)).toBe(true);
  });

  it("red whenever one side is missing, even at $0", () => {
    expect(overThreshold(row("missing-at-vendor", 0, -10), 100)).toBe(true);
    expect(overThreshold(row("unseen-by-conduit", 0, 10), 100)).toBe(true);
  });

  it("formats signed figures and UTC days", () => {
    expect(signedNumber(1200)).toBe("+1,200");
    expect(signedNumber(-42)).toBe("-42");
    expect(signedUsd(0.00225)).toBe("+$0.002250");
    expect(signedUsd(-1.5)).toBe("-$1.500000");
    expect(signedUsd(0)).toBe("$0.000000");
    expect(utcDay(1, Date.parse("2026-12-07T01:00:00Z"))).toBe("2026-12-06");
  });
});
