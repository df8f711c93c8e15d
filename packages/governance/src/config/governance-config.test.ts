import { ConfigurationError } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { parseGovernanceConfig } from "./governance-config.js";

describe("parseGovernanceConfig", () => {
  it("names each bad field from its config key", () => {
    expect(() => parseGovernanceConfig({ admin: { keys: ["short"] } })).toThrow("admin.keys.0: an admin key has at least 32 characters");
    expect(() => parseGovernanceConfig({ keys: "redis" })).toThrow(/^keys: /);
    expect(() => parseGovernanceConfig({ keys: { store: "disk" } })).toThrow('keys.store: expected "memory" | "redis"');
  });

  it("checks the admin section: keys of at least 32 characters, bare or with a role of the admin API, no other key", () => {
    const key = "k".repeat(32);
    expect(parseGovernanceConfig({ admin: { keys: [key, { key, role: "team-admin:a" }] } }).admin).toEqual({
      keys: [key, { key, role: "team-admin:a" }],
    });
    expect(parseGovernanceConfig({ admin: {} }).admin).toEqual({ keys: [] });
    const issuesOf = (admin: unknown) => {
      try {
        parseGovernanceConfig({ admin });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as ConfigurationError).issues;
      }
      throw new Error(`accepted ${JSON.stringify(admin)}`);
    };
    expect(issuesOf({ key: [key] })).toEqual([{ path: "admin.key", message: "unknown key" }]);
    expect(issuesOf({ keys: [{ key, role: "root" }] })).toEqual([
      { path: "admin.keys.0.role", message: 'expected "admin" | "viewer" | "auditor" | "team-admin:<team id>"' },
    ]);
    expect(issuesOf({ keys: [{ key }] })).toEqual([
      { path: "admin.keys.0", message: 'expected "<admin key of at least 32 characters>" or {"key": "<admin key>", "role": "<role>"}' },
    ]);
    expect(issuesOf({ keys: [{ key, role: "admin", note: "x" }] })).toEqual([{ path: "admin.keys.0.note", message: "unknown key" }]);
    expect(issuesOf("x")[0]?.path).toBe("admin");
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
