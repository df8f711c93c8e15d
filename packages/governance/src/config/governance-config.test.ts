import { describe, expect, it } from "vitest";
import { parseGovernanceConfig } from "./governance-config.js";

describe("parseGovernanceConfig", () => {
  it("names each bad field from its config key", () => {
    expect(() => parseGovernanceConfig({ admin: { keys: ["short"] } })).toThrow(
      "invalid admin.keys.0: an admin key has at least 32 characters",
    );
    expect(() => parseGovernanceConfig({ keys: "redis" })).toThrow(/^invalid keys: /);
  });

  it("passes good keys through with defaults", () => {
    expect(parseGovernanceConfig({ keys: {} }).keys).toMatchObject({ store: "memory" });
  });

  it("bounds the numbers a budget counts: prices up to $10,000 per million tokens, defaultMaxOutputTokens up to 10^7", () => {
    expect(() => parseGovernanceConfig({ prices: { m: { input: 1e308, output: 1 } } })).toThrow(/prices\.m\.input/);
    expect(() => parseGovernanceConfig({ keys: { defaultMaxOutputTokens: 1e15 } })).toThrow(/keys\.defaultMaxOutputTokens/);
    expect(parseGovernanceConfig({ keys: { defaultMaxOutputTokens: 10_000_000 } }).keys?.defaultMaxOutputTokens).toBe(10_000_000);
  });

  it('keys.unpricedModels is "refuse" by default, or "estimate" or "allow"', () => {
    expect(parseGovernanceConfig({ keys: {} }).keys?.unpricedModels).toBe("refuse");
    expect(parseGovernanceConfig({ keys: { unpricedModels: "estimate" } }).keys?.unpricedModels).toBe("estimate");
    expect(() => parseGovernanceConfig({ keys: { unpricedModels: "free" } })).toThrow(/keys\.unpricedModels/);
  });
});
