import { ConfigurationError } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { createPipeline } from "../test/pipeline.js";
import { parseStaticAuthConfig } from "./auth-config-schema.js";
import { createAuthFromConfig } from "./auth-from-config.js";

const ROUTES = ["/api/private", "/api/public/info", "/health", "/api/health/live", "/ready"];

describe("createAuthFromConfig", () => {
  it("builds API-key auth from the demo config, with health paths always public", async () => {
    const run = createPipeline(
      createAuthFromConfig({
        type: "api-key",
        keys: { "demo-key": { id: "demo", roles: ["admin"], permissions: ["*"] } },
        skipPaths: ["/public/*"],
      }),
      ROUTES,
    );
    const ok = await run({ url: "/api/private", headers: { "x-api-key": "demo-key" } });
    expect(ok.json.data.user).toEqual({ id: "demo", roles: ["admin"], permissions: ["*"] });
    expect((await run({ url: "/api/private", headers: { "x-api-key": "demo-ke" } })).status).toBe(401);
    expect((await run({ url: "/api/private" })).json.error.message).toBe("Authentication required");
    for (const url of ["/api/public/info", "/health", "/api/health/live", "/ready"]) expect((await run({ url })).status).toBe(200);
  });

  it("builds bearer auth from static tokens", async () => {
    const run = createPipeline(createAuthFromConfig({ type: "bearer", tokens: { "tok-1": { id: "t1" } } }));
    expect((await run({ url: "/api/private", headers: { authorization: "Bearer tok-1" } })).json.data.user.id).toBe("t1");
    expect((await run({ url: "/api/private", headers: { authorization: "Bearer tok-2" } })).status).toBe(401);
  });

  it("builds basic auth from users, id defaulting to the username", async () => {
    const run = createPipeline(createAuthFromConfig({ type: "basic", users: { ada: { password: "pw:1", roles: ["ops"] } } }));
    const basic = (credential: string) => ({ authorization: `Basic ${Buffer.from(credential).toString("base64")}` });
    expect((await run({ url: "/api/private", headers: basic("ada:pw:1") })).json.data.user).toEqual({
      id: "ada",
      roles: ["ops"],
      permissions: [],
    });
    expect((await run({ url: "/api/private", headers: basic("ada:pw") })).status).toBe(401);
    expect((await run({ url: "/api/private", headers: basic("eve:pw:1") })).status).toBe(401);
    expect((await run({ url: "/api/private", headers: basic("constructor:x") })).status).toBe(401);
  });

  it("returns no middleware when disabled", () => {
    expect(createAuthFromConfig({ type: "api-key", enabled: false, keys: { k: { id: "a" } } })).toEqual([]);
  });
});

describe("parseStaticAuthConfig", () => {
  const issuesOf = (config: unknown): string[] => {
    try {
      parseStaticAuthConfig(config);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      return ((error as ConfigurationError).details as { issues: { path: string }[] }).issues.map((issue) => issue.path);
    }
    return [];
  };

  it("names every bad key, secrets by position only", () => {
    const config = { type: "api-key", keys: { "secret-1": { id: "a" }, "secret-2": { id: 3, roles: "admin" } }, skipPath: ["/x"] };
    expect(issuesOf(config)).toEqual(["auth.keys[#2].id", "auth.keys[#2].roles", "auth.skipPath"]);
    expect(() => parseStaticAuthConfig(config)).toThrow(/auth\.keys\[#2\]\.roles: expected an array of strings/);
    expect(() => parseStaticAuthConfig(config)).not.toThrow(/secret-2/);
  });

  it("rejects unknown types, empty maps, bad users and bad options", () => {
    expect(issuesOf({ type: "jwt" })).toEqual(["auth.type"]);
    expect(issuesOf({ type: "bearer", tokens: {} })).toEqual(["auth.tokens"]);
    expect(issuesOf({ type: "basic", users: { "a:b": { password: "" } }, skipDevPlayground: "no" })).toEqual([
      "auth.users.a:b.password",
      "auth.users.a:b",
      "auth.skipDevPlayground",
    ]);
    expect(issuesOf({ type: "api-key", keys: { " ": { id: "x", roles: [1, 2] } }, enabled: "yes", realm: "" })).toEqual([
      "auth.keys[#1].roles",
      "auth.keys[#1]",
      "auth.enabled",
      "auth.realm",
    ]);
    expect(issuesOf({ type: "bearer", tokens: { t: { id: "x", extra: 1 } }, keys: {} })).toEqual(["auth.tokens[#1].extra", "auth.keys"]);
    expect(issuesOf([])).toEqual(["auth"]);
    expect(issuesOf(null)).toEqual(["auth"]);
  });
});
