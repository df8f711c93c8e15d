import { ConfigurationError } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { parseConsoleConfig } from "./console-config-schema.js";

/** The issues `parseConsoleConfig` raises for `input` (a failure if it accepts it). */
function issuesOf(input: unknown): Array<{ path: string; message: string }> {
  try {
    parseConsoleConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).issues;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe("parseConsoleConfig", () => {
  it("reads an absent section as enabled with the default lifetime, and every setting", () => {
    expect(parseConsoleConfig(undefined)).toEqual({ enabled: true });
    expect(parseConsoleConfig({})).toEqual({ enabled: true });
    expect(parseConsoleConfig({ enabled: false, sessionTtlSeconds: 3600 })).toEqual({ enabled: false, sessionTtlMs: 3_600_000 });
    expect(
      parseConsoleConfig({ sso: { provider: "okta", roleMap: { ops: "admin", audit: "auditor", "team-a": "team-admin:a" } } }),
    ).toEqual({
      enabled: true,
      sso: { provider: "okta", rolesClaim: "groups", roleMap: { ops: "admin", audit: "auditor", "team-a": "team-admin:a" } },
    });
  });

  it("names an unknown key, a wrong type and a value out of range by key path", () => {
    expect(issuesOf({ sessionTtl: 60 })).toEqual([{ path: "console.sessionTtl", message: "unknown key" }]);
    expect(issuesOf({ sessionTtlSeconds: 30 * 24 * 3600 + 1 })).toEqual([
      { path: "console.sessionTtlSeconds", message: "expected at most 2592000 (30 days)" },
    ]);
    expect(issuesOf({ sessionTtlSeconds: 1.5 })[0]?.path).toBe("console.sessionTtlSeconds");
    expect(issuesOf({ sessionTtlSeconds: 0 })[0]?.path).toBe("console.sessionTtlSeconds");
    expect(issuesOf({ enabled: "no" })[0]).toMatchObject({ path: "console.enabled", message: expect.stringContaining("expected boolean") });
    expect(issuesOf("on")[0]?.path).toBe("console");
  });

  it("checks console.sso: its provider, its claim and every role it maps to", () => {
    expect(issuesOf({ sso: { provider: "okta", roleMap: { ops: "root" } } })).toEqual([
      { path: "console.sso.roleMap.ops", message: 'expected "admin" | "viewer" | "auditor" | "team-admin:<team id>"' },
    ]);
    expect(issuesOf({ sso: { provider: "okta", roleMap: {} } })[0]?.path).toBe("console.sso.roleMap");
    expect(issuesOf({ sso: { provider: "", roleMap: { ops: "admin" } } })[0]?.path).toBe("console.sso.provider");
    expect(issuesOf({ sso: { provider: "okta", roleMap: { ops: "admin" }, claim: "x" } })).toEqual([
      { path: "console.sso.claim", message: "unknown key" },
    ]);
  });

  it("throws the one config-error type, its message naming the key", () => {
    expect(() => parseConsoleConfig({ enabled: true, theme: "dark" })).toThrow("console.theme: unknown key");
  });
});
