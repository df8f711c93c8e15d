import { describe, expect, it } from "vitest";
import { createCognitoProvider } from "../providers/cognito-provider.js";
import { createOAuth2Provider } from "../providers/oauth2-provider.js";
import { readSettings, setting } from "./settings-reader.js";

const issuesOf = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return (error as { details?: { issues?: unknown } }).details?.issues;
  }
  throw new Error("expected a settings error");
};

describe("readSettings (zod)", () => {
  const shape = { issuer: setting.url(), audience: setting.strings(), timeoutMs: setting.number(1), secret: setting.string() };

  it("names every bad field under the given path, values never echoed", () => {
    const input = { type: "jwt", issuer: "not a url", audience: ["a", ""], timeoutMs: 0, secret: 42, isuer: "s3cret-value" };
    let message = "";
    try {
      readSettings("jwt", input, shape, "auth.providers[0]");
    } catch (error) {
      message = (error as Error).message;
      expect(JSON.stringify(error)).not.toContain("s3cret-value");
    }
    expect(message).toBe(
      "Invalid jwt auth settings: auth.providers[0].issuer: expected an absolute http(s) URL; " +
        "auth.providers[0].audience: expected a string or an array of strings; auth.providers[0].timeoutMs: expected a number ≥ 1; " +
        "auth.providers[0].secret: expected a non-empty string; auth.providers[0].isuer: unknown key",
    );
  });

  it("returns the settings without their type; a non-object is one issue at the path", () => {
    expect(readSettings("jwt", { type: "jwt", issuer: "https://id.example.com", audience: "api" }, shape)).toEqual({
      issuer: "https://id.example.com",
      audience: "api",
    });
    expect(issuesOf(() => readSettings("jwt", "https://id.example.com", shape))).toEqual([{ path: "auth", message: "expected an object" }]);
  });

  it("word choices are checked by the schema, with the other problems in one pass", () => {
    expect(
      issuesOf(() => createCognitoProvider({ region: "eu-west-1", userPoolId: "p", tokenUse: "refresh" as never, bogus: 1 } as never)),
    ).toEqual([
      { path: "auth.tokenUse", message: 'expected "access", "id" or "any"' },
      { path: "auth.bogus", message: "unknown key" },
    ]);
    expect(issuesOf(() => createOAuth2Provider({ userinfoUrl: "https://id.example.com/userinfo", mode: "opaque" as never }))).toEqual([
      { path: "auth.mode", message: 'expected "introspection" or "userinfo"' },
    ]);
  });
});
