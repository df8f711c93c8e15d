import {
  ApiKeyStore,
  createApiKeyAuthMiddleware,
  createAuthFromConfig,
  createAuthMiddleware,
  createBasicAuthMiddleware,
  createBearerAuthMiddleware,
  createPermissionMiddleware,
  createRoleMiddleware,
  secretsEqual,
} from "@conduit-ai/auth";
import type { BaseServerAdapter, MiddlewareDefinition, RouteDefinition } from "@conduit-ai/server-core";
import { networkInterfaces } from "node:os";
import { afterEach, expect, it } from "vitest";
import { forEachAdapter, rawRequest } from "./harness.js";

const TOKEN = "conformance-token-123";
const USERS: Record<string, { id: string; roles: string[]; permissions: string[] }> = {
  [TOKEN]: { id: "alice", roles: ["editor"], permissions: ["tools:*"] },
  "viewer-token": { id: "bob", roles: ["viewer"], permissions: ["memory:read"] },
  "admin-token": { id: "carol", roles: ["editor", "admin"], permissions: ["*"] },
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const basic = (credential: string) => ({ authorization: `Basic ${Buffer.from(credential).toString("base64")}` });

/** The handler answers who it sees, so every test checks what reached it. */
const whoAmI = (path: string, middleware?: MiddlewareDefinition[]): RouteDefinition => ({
  method: "GET",
  path,
  handler: (ctx) => ({ user: ctx.user ?? null }),
  ...(middleware ? { middleware } : {}),
});

/** Registers `middleware` globally and a few routes; rate limiting is off so request counts never matter. */
function setupWith(middleware: MiddlewareDefinition[], routes: RouteDefinition[] = []) {
  return {
    config: { rateLimit: { enabled: false } },
    setup: (adapter: BaseServerAdapter<unknown>) => {
      for (const definition of middleware) adapter.registerMiddleware(definition);
      for (const route of [whoAmI("/private"), whoAmI("/public/info"), whoAmI("/open"), ...routes]) adapter.registerRoute(route);
    },
  };
}

const bearerAuth = (options: Partial<Parameters<typeof createAuthMiddleware>[0]> = {}) =>
  createAuthMiddleware({ type: "bearer", validate: (token) => USERS[token] ?? null, skipPaths: ["/public/*", "/open"], ...options });

forEachAdapter("authentication", ({ start }) => {
  const originalEnv = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = originalEnv;
  });

  it("answers 401 AUTH_REQUIRED with the configured message, the envelope and a challenge", async () => {
    const server = await start(setupWith([bearerAuth({ errorMessage: "Sign in to use Conduit" })]));
    const response = await fetch(server.url("/api/private"));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="conduit"');
    const body = await response.json();
    expect(body.error).toMatchObject({ code: "AUTH_REQUIRED", message: "Sign in to use Conduit", category: "AUTHENTICATION" });
    expect(body.error.requestId).toBe(body.metadata.requestId);
  });

  it("refuses an unknown token with 401 AUTH_INVALID and never echoes it", async () => {
    const server = await start(setupWith([bearerAuth()]));
    const response = await fetch(server.url("/api/private"), { headers: bearer("guessed-token-xyz") });
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(JSON.parse(text).error.code).toBe("AUTH_INVALID");
    expect(text).not.toContain("guessed-token-xyz");
  });

  it("hands the user to the handler as ctx.user with roles and permissions", async () => {
    const server = await start(setupWith([bearerAuth()]));
    const response = await fetch(server.url("/api/private"), { headers: { authorization: `bEaReR ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect((await response.json()).data.user).toEqual(USERS[TOKEN]);
  });

  it("keeps skipPaths public (prefix and exact, with basePath) and health always reachable", async () => {
    const server = await start(setupWith([bearerAuth()]));
    expect((await fetch(server.url("/api/public/info"))).status).toBe(200);
    expect((await fetch(server.url("/api/open"))).status).toBe(200);
    expect((await fetch(server.url("/api/private"))).status).toBe(401);
    expect((await fetch(server.url("/api/openx"))).status).toBe(401);
  });

  it("never lets a dot-segment or encoded path borrow a public prefix", async () => {
    const server = await start(setupWith([bearerAuth()]));
    for (const path of [
      "/api/public/../private",
      "/api/public/%2e%2e/private",
      "/api/public/..%2fprivate",
      "/api/open/../private",
      "/api//private",
    ]) {
      const response = await rawRequest(server.port, { path });
      // Whatever the framework makes of the path, the protected handler must not answer without credentials.
      expect(response.status, path).not.toBe(200);
      expect(response.status, path).toBeLessThan(500);
    }
  });

  it("fails closed with 401 when the validator throws", async () => {
    const server = await start(
      setupWith([
        bearerAuth({
          validate: () => {
            throw new Error("identity provider down");
          },
        }),
      ]),
    );
    const response = await fetch(server.url("/api/private"), { headers: bearer(TOKEN) });
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(JSON.parse(text).error.code).toBe("AUTH_INVALID");
    expect(text).not.toContain("identity provider down");
  });

  it("fails closed with 401 when the validator outlives timeoutMs", async () => {
    const server = await start(setupWith([bearerAuth({ timeoutMs: 100, validate: () => new Promise(() => undefined) })]));
    const started = performance.now();
    const response = await fetch(server.url("/api/private"), { headers: bearer(TOKEN) });
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe("AUTH_INVALID");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("answers malformed and oversized credentials with the 401 envelope, never 5xx", async () => {
    const server = await start(setupWith([bearerAuth()]));
    for (const authorization of ["Bearer", "Bearer    ", "Basic Zm9vOmJhcg==", "Bearer a b", `Bearer ${"x".repeat(9000)}`]) {
      const response = await rawRequest(server.port, { path: "/api/private", headers: { authorization } });
      expect(response.status).toBe(401);
      expect(JSON.parse(response.body).error.code).toBe("AUTH_INVALID");
    }
    // Beyond Node's header limit the HTTP parser itself refuses the request; never a 5xx or a hang.
    const huge = await rawRequest(server.port, { path: "/api/private", headers: { authorization: `Bearer ${"x".repeat(70_000)}` } }).catch(
      () => ({ status: 431 }),
    );
    expect([401, 431]).toContain(huge.status);
  });
});

forEachAdapter("authentication schemes", ({ start }) => {
  it("bearer middleware: required by default, optional with required: false", async () => {
    const validate = (token: string) => USERS[token] ?? null;
    const required = await start(setupWith([createBearerAuthMiddleware({ validate })]));
    expect((await fetch(required.url("/api/private"))).status).toBe(401);
    const optional = await start(setupWith([createBearerAuthMiddleware({ validate, required: false })]));
    expect((await (await fetch(optional.url("/api/private"))).json()).data.user).toBeNull();
    expect((await (await fetch(optional.url("/api/private"), { headers: bearer(TOKEN) })).json()).data.user.id).toBe("alice");
  });

  it("API keys: x-api-key against a store whose keys can be added and removed at runtime", async () => {
    const store = new ApiKeyStore().addKey("key-live", { id: "service", roles: ["service"] });
    const server = await start(setupWith([createApiKeyAuthMiddleware({ store })]));
    const withKey = (key: string) => fetch(server.url("/api/private"), { headers: { "x-api-key": key } });
    expect((await (await withKey("key-live")).json()).data.user).toEqual({ id: "service", roles: ["service"], permissions: [] });
    expect((await withKey("key-liv")).status).toBe(401);
    store.addKey("key-new", { id: "late" });
    expect((await withKey("key-new")).status).toBe(200);
    store.removeKey("key-live");
    expect((await withKey("key-live")).status).toBe(401);
    store.clear();
    expect((await withKey("key-new")).status).toBe(401);
    expect(store.size).toBe(0);
  });

  it("basic auth: decoded credentials, and garbage base64 is a 401", async () => {
    const validate = (username: string, password: string) => (username === "ops" && secretsEqual(password, "pa:ss") ? { id: "ops" } : null);
    const server = await start(setupWith([createBasicAuthMiddleware({ validate })]));
    const ok = await fetch(server.url("/api/private"), { headers: basic("ops:pa:ss") });
    expect((await ok.json()).data.user.id).toBe("ops");
    for (const headers of [basic("ops:wrong"), basic("no-colon"), { authorization: "Basic ***garbage***" }, { authorization: "Basic" }]) {
      const response = await rawRequest(server.port, { path: "/api/private", headers });
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toContain("Basic");
    }
  });

  it("static config: API keys from the demo's auth key, health and skipPaths public", async () => {
    const middleware = createAuthFromConfig({
      type: "api-key",
      keys: { "demo-key-1": { id: "demo", roles: ["admin"], permissions: ["*"] } },
      skipPaths: ["/public/*"],
    });
    const server = await start(setupWith(middleware));
    expect((await fetch(server.url("/api/private"), { headers: { "x-api-key": "demo-key-1" } })).status).toBe(200);
    expect((await fetch(server.url("/api/private"), { headers: { "x-api-key": "demo-key-2" } })).status).toBe(401);
    expect((await fetch(server.url("/api/public/info"))).status).toBe(200);
    expect((await fetch(server.url("/health"))).status).toBe(200);
  });
});

forEachAdapter("authorization", ({ start }) => {
  const auth = bearerAuth();
  const guarded = [
    whoAmI("/any-role", [createRoleMiddleware({ requiredRoles: ["admin", "editor"] })]),
    whoAmI("/all-roles", [createRoleMiddleware({ requiredRoles: ["admin", "editor"], requireAll: true })]),
    whoAmI("/execute", [createPermissionMiddleware({ requiredPermissions: ["tools:execute"] })]),
    whoAmI("/public/guarded", [createRoleMiddleware({ requiredRoles: ["admin"] })]),
  ];
  const statusOf = async (url: string, token?: string) => {
    const response = await fetch(url, token ? { headers: bearer(token) } : {});
    const body = await response.json();
    return response.status === 200 ? 200 : `${response.status} ${body.error.code}`;
  };

  it("roles: any one by default, all with requireAll; refusal is 403 FORBIDDEN", async () => {
    const server = await start(setupWith([auth], guarded));
    expect(await statusOf(server.url("/api/any-role"), TOKEN)).toBe(200);
    expect(await statusOf(server.url("/api/any-role"), "viewer-token")).toBe("403 FORBIDDEN");
    expect(await statusOf(server.url("/api/all-roles"), TOKEN)).toBe("403 FORBIDDEN");
    expect(await statusOf(server.url("/api/all-roles"), "admin-token")).toBe(200);
  });

  it("permissions: hierarchical wildcards grant, narrower grants refuse", async () => {
    const server = await start(setupWith([auth], guarded));
    expect(await statusOf(server.url("/api/execute"), TOKEN)).toBe(200);
    expect(await statusOf(server.url("/api/execute"), "admin-token")).toBe(200);
    expect(await statusOf(server.url("/api/execute"), "viewer-token")).toBe("403 FORBIDDEN");
  });

  it("no user reaching a role check is 401, not 403", async () => {
    const server = await start(setupWith([auth], guarded));
    expect(await statusOf(server.url("/api/public/guarded"))).toBe("401 AUTH_REQUIRED");
  });
});

/** A non-loopback address of this machine, to be a client "from another host" (none on an isolated box). */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && !entry.internal && entry.family === "IPv4")?.address;

/** One middleware per auth scheme, built when called (the dev playground decision is made at build time). */
const SCHEMES: Record<string, () => MiddlewareDefinition[]> = {
  "api-key": () => [createApiKeyAuthMiddleware({ store: new ApiKeyStore().addKey("key-1", { id: "k" }) })],
  bearer: () => [createBearerAuthMiddleware({ validate: (token) => USERS[token] ?? null })],
  basic: () => [
    createBasicAuthMiddleware({
      validate: (username, password) => (username === "ops" && secretsEqual(password, "pw") ? { id: "ops" } : null),
    }),
  ],
  custom: () => [
    createAuthMiddleware({
      type: "custom",
      extractToken: (ctx) => ctx.header("x-session") ?? null,
      validate: (token) => (token === "session-1" ? { id: "s" } : null),
    }),
  ],
  "static config": () => createAuthFromConfig({ type: "api-key", keys: { "key-1": { id: "k" } } }),
};

forEachAdapter("dev playground header", ({ start }) => {
  const originalEnv = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = originalEnv;
  });
  const playground = { "x-dev-playground": "true" };

  it("is ignored for every scheme when NODE_ENV is unset (how npm run demo runs) or anything but development", async () => {
    for (const environment of [undefined, "test", "staging"]) {
      if (environment === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = environment;
      for (const [scheme, build] of Object.entries(SCHEMES)) {
        const server = await start(setupWith(build()));
        const response = await fetch(server.url("/api/private"), { headers: playground });
        expect(response.status, `${scheme} NODE_ENV=${environment}`).toBe(401);
        expect((await response.json()).error.code).toBe("AUTH_REQUIRED");
      }
    }
  });

  it("passes loopback requests for every scheme under NODE_ENV=development, never through a proxy", async () => {
    process.env.NODE_ENV = "development";
    for (const [scheme, build] of Object.entries(SCHEMES)) {
      const server = await start(setupWith(build()));
      const local = await fetch(server.url("/api/private"), { headers: playground });
      expect(local.status, scheme).toBe(200);
      expect((await local.json()).data.user, scheme).toBeNull();
      const proxied = await fetch(server.url("/api/private"), { headers: { ...playground, "x-forwarded-for": "127.0.0.1" } });
      expect(proxied.status, scheme).toBe(401);
    }
  });

  it("is refused for a client on another host even under NODE_ENV=development", async ({ skip }) => {
    if (!externalAddress) skip("this machine has no non-loopback IPv4 address to connect from");
    process.env.NODE_ENV = "development";
    const server = await start({ ...setupWith(SCHEMES.bearer?.() ?? []), config: { host: "0.0.0.0", rateLimit: { enabled: false } } });
    const remote = await fetch(`http://${externalAddress}:${server.port}/api/private`, { headers: playground });
    expect(remote.status).toBe(401);
    const local = await fetch(`http://127.0.0.1:${server.port}/api/private`, { headers: playground });
    expect(local.status).toBe(200);
  });

  it("is enabled by the explicit switch (static config devPlayground: true), still loopback only and never in production", async () => {
    delete process.env.NODE_ENV;
    const enabled = await start(setupWith(createAuthFromConfig({ type: "api-key", keys: { "key-1": { id: "k" } }, devPlayground: true })));
    expect((await fetch(enabled.url("/api/private"), { headers: playground })).status).toBe(200);
    process.env.NODE_ENV = "production";
    const production = await start(
      setupWith(createAuthFromConfig({ type: "api-key", keys: { "key-1": { id: "k" } }, devPlayground: true })),
    );
    expect((await fetch(production.url("/api/private"), { headers: playground })).status).toBe(401);
  });
});
