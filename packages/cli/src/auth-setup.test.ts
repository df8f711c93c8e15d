import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServeOptions } from "./config-file.js";
import { assembleServer } from "./server-assembly.js";

const client = { id: "conduit", secret: "conduit-client-secret" };

/** Writes `file` as a config file and boots the assembled server (hono) on an ephemeral port. */
async function boot(file: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const path = join(mkdtempSync(join(tmpdir(), "conduit-auth-setup-")), "config.json");
  writeFileSync(path, JSON.stringify({ server: { logging: { enabled: false }, rateLimit: { enabled: false } }, ...file }));
  const options = parseServeOptions(["--port", "0", "--host", "127.0.0.1", "--config", path], {});
  const assembled = await assembleServer(options, env);
  await assembled.server.start();
  const base = `http://127.0.0.1:${assembled.server.address()?.port}`;
  return {
    base,
    stop: async () => {
      await assembled.server.stop();
      await assembled.close();
    },
  };
}

describe("the config file's auth key accepts every provider type", () => {
  let idp: IdentityServer;
  let moduleFile: string;
  beforeAll(async () => {
    idp = await startIdentityServer({ client });
    moduleFile = join(mkdtempSync(join(tmpdir(), "conduit-custom-")), "validate.mjs");
    writeFileSync(moduleFile, 'export default (token) => (token === "custom-token" ? { id: "custom-user", roles: ["custom"] } : null);\n');
  });
  afterAll(() => idp.close());

  // Each provider's natural settings, pointed at the local identity server, and a token it accepts.
  const cases: Array<[string, () => Record<string, unknown>, () => Promise<string>]> = [
    ["custom", () => ({ type: "custom", module: moduleFile }), async () => "custom-token"],
    [
      "jwt",
      () => ({ type: "jwt", jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: "api", rolesClaim: "roles" }),
      () => idp.sign({ sub: "u-jwt", aud: "api", roles: ["r"] }),
    ],
    [
      "oauth2",
      () => ({ type: "oauth2", introspectionUrl: `${idp.issuer}/introspect`, clientId: client.id, clientSecret: client.secret }),
      async () => idp.issueOpaqueToken({ sub: "u-oauth2" }),
    ],
    ["oidc (alias)", () => ({ type: "oidc", issuer: idp.issuer }), () => idp.sign({ sub: "u-oidc" })],
    [
      "auth0",
      () => ({ type: "auth0", domain: idp.origin, audience: "api" }),
      () => idp.sign({ sub: "u-auth0", aud: "api", iss: `${idp.origin}/` }),
    ],
    ["clerk", () => ({ type: "clerk", frontendApi: idp.origin }), () => idp.sign({ sub: "u-clerk", sid: "sess_1" })],
    [
      "firebase",
      () => ({ type: "firebase", projectId: "demo", jwksUrl: idp.jwksUrl, issuer: idp.issuer }),
      () => idp.sign({ sub: "u-firebase", aud: "demo" }),
    ],
    [
      "supabase",
      () => ({ type: "supabase", url: idp.origin }),
      () => idp.sign({ sub: "u-supabase", aud: "authenticated", iss: `${idp.origin}/auth/v1` }),
    ],
    [
      "cognito",
      () => ({ type: "cognito", region: "eu-west-1", userPoolId: "eu-west-1_x", jwksUrl: idp.jwksUrl, issuer: idp.issuer }),
      () => idp.sign({ sub: "u-cognito", token_use: "access" }),
    ],
    [
      "keycloak",
      () => ({ type: "keycloak", url: idp.origin, realm: "demo" }),
      () => idp.sign({ sub: "u-keycloak", iss: `${idp.origin}/realms/demo` }),
    ],
    ["better-auth", () => ({ type: "better-auth", baseUrl: idp.origin }), () => idp.sign({ sub: "u-better-auth", aud: idp.origin })],
    ["workos", () => ({ type: "workos", clientId: "client_1", apiUrl: idp.origin }), () => idp.sign({ sub: "u-workos" })],
  ];

  it.each(cases)("%s", async (_name, settings, token) => {
    const server = await boot({ auth: settings() });
    try {
      expect((await fetch(`${server.base}/api/auth/me`)).status).toBe(401);
      expect((await fetch(`${server.base}/api/auth/me`, { headers: { authorization: "Bearer wrong.token.here" } })).status).toBe(401);
      const response = await fetch(`${server.base}/api/auth/me`, { headers: { authorization: `Bearer ${await token()}` } });
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(body.data.user.id).toMatch(/^(u-|custom-user)/);
      expect(body.data.session?.id).toEqual(expect.any(String));
      expect((await fetch(`${server.base}/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("applies authorization rules (403 FORBIDDEN) and keeps sessions in Redis when asked", async () => {
    const server = await boot(
      {
        auth: {
          type: "jwt",
          jwksUrl: idp.jwksUrl,
          sessions: { store: "redis", keyPrefix: `test:cli:${Date.now()}:`, maxSessionsPerUser: 2 },
        },
        authorization: {
          hierarchy: { admin: ["operator"] },
          rolePermissions: { operator: ["tools:*"] },
          rules: [{ path: "/api/tools/*", methods: ["POST"], permissions: ["tools:execute"] }],
        },
      },
      { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" },
    );
    try {
      const execute = async (roles: string[]) =>
        fetch(`${server.base}/api/tools/calculator/execute`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${await idp.sign({ sub: `u-${roles.join("-")}`, roles })}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ arguments: { expression: "1 + 1" } }),
        });
      const denied = await execute(["viewer"]);
      expect(denied.status).toBe(403);
      expect((await denied.json()).error.code).toBe("FORBIDDEN");
      expect((await execute(["admin"])).status).toBe(200);
      const token = await idp.sign({ sub: "u-admin", roles: ["admin"], sid: "second" });
      const sessions = await (await fetch(`${server.base}/api/auth/sessions`, { headers: { authorization: `Bearer ${token}` } })).json();
      expect(sessions.data.total).toBe(2);
    } finally {
      await server.stop();
    }
  });

  it("refuses bad auth and authorization configs with messages naming the key", async () => {
    await expect(boot({ auth: { type: "okta" } })).rejects.toThrow(/auth.type: expected one of api-key, bearer, basic, custom, jwt/);
    await expect(boot({ auth: { type: "keycloak", url: idp.origin } })).rejects.toThrow(/invalid auth: .*auth.realm/);
    await expect(boot({ auth: { type: "jwt", jwksUrl: idp.jwksUrl, sessions: { store: "redis" } } })).rejects.toThrow(/REDIS_URL/);
    await expect(
      boot({ auth: { type: "jwt", jwksUrl: idp.jwksUrl }, authorization: { hierarchy: { a: ["b"], b: ["a"] } } }),
    ).rejects.toThrow(/invalid authorization: Role hierarchy has a cycle: a → b → a/);
    await expect(
      boot({ auth: { type: "api-key", keys: { k: { id: "x" } } }, authorization: { rules: [{ path: "tools", roles: ["x"] }] } }),
    ).rejects.toThrow(/authorization.rules\[0\].path/);
  });

  it("static auth with authorization rules, and the auth routes without sessions", async () => {
    const server = await boot({
      auth: { type: "bearer", tokens: { "viewer-token": { id: "v", roles: ["viewer"] }, "ops-token": { id: "o", roles: ["operator"] } } },
      authorization: { rules: [{ path: "/api/tools/*", methods: ["POST"], roles: ["operator"] }] },
    });
    try {
      const call = (token: string) =>
        fetch(`${server.base}/api/tools/calculator/execute`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ arguments: { expression: "2 * 3" } }),
        });
      expect((await call("viewer-token")).status).toBe(403);
      expect((await call("ops-token")).status).toBe(200);
      const me = await (await fetch(`${server.base}/api/auth/me`, { headers: { authorization: "Bearer ops-token" } })).json();
      expect(me.data).toEqual({ user: { id: "o", roles: ["operator"], permissions: [] }, session: null });
    } finally {
      await server.stop();
    }
  });
});
