import { createPublicKey } from "node:crypto";
import {
  type BaseAuthProvider,
  SessionManager,
  type UnauthorizedEvent,
  createAuthRoutes,
  createAuthorizationRulesMiddleware,
  createJwtProvider,
  createProviderAuthMiddleware,
  getCurrentSession,
  getCurrentUser,
  hasRole,
  requirePermission,
} from "@conduit-ai/auth-providers";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import type { BaseServerAdapter, RouteDefinition } from "@conduit-ai/server-core";
import { SignJWT, exportSPKI } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

let idp: IdentityServer;
beforeAll(async () => {
  idp = await startIdentityServer();
});
afterAll(() => idp.close());

const AUDIENCE = "conduit-conformance";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWT provider on the local identity server, recording its `auth:unauthorized` events. */
function jwtProvider(): { provider: BaseAuthProvider; events: UnauthorizedEvent[] } {
  const provider = createJwtProvider(
    { jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: AUDIENCE, clockToleranceSec: 0 },
    { rbac: { hierarchy: { admin: ["operator"], operator: ["viewer"] }, rolePermissions: { operator: ["tools:*"] } } },
  );
  const events: UnauthorizedEvent[] = [];
  provider.on("auth:unauthorized", (event) => events.push(event));
  return { provider, events };
}

const whoAmI: RouteDefinition = {
  method: "GET",
  path: "/whoami",
  // The ambient helpers, without ctx: they must see this request's user, not another's.
  handler: async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
    return {
      user: getCurrentUser()?.id ?? null,
      session: getCurrentSession()?.id ?? null,
      sameAsCtx: getCurrentUser() === ctx.user,
      isOwnRole: hasRole(`r-${ctx.user?.id}`),
    };
  },
};
const toolRoute: RouteDefinition = {
  method: "POST",
  path: "/tools/:name/execute",
  handler: (ctx) => ({ ran: ctx.params.name, by: requirePermission("tools:execute").id }),
};

function setup(provider: BaseAuthProvider, extra: (adapter: BaseServerAdapter<unknown>) => void = () => undefined) {
  return {
    config: { rateLimit: { enabled: false } },
    setup: (adapter: BaseServerAdapter<unknown>) => {
      adapter.registerMiddleware(createProviderAuthMiddleware(provider, { skipPaths: ["/api/health*"], ambientContext: true }));
      adapter.registerRoute(whoAmI);
      adapter.registerRouteGroup(createAuthRoutes({ sessions: provider.sessions }));
      extra(adapter);
    },
  };
}

forEachAdapter("auth providers: refused tokens", ({ start }) => {
  it("refuses every bad token with a 401 envelope (never a 500) and emits auth:unauthorized for each", async () => {
    const { provider, events } = jwtProvider();
    const server = await start(setup(provider));
    const now = Math.floor(Date.now() / 1000);
    const key = idp.keys[0];
    if (!key) throw new Error("no key");
    const publicPem = await exportSPKI(createPublicKey({ key: key.publicJwk as import("node:crypto").JsonWebKey, format: "jwk" }) as never);
    const cases: Array<[string, string | undefined, string, string]> = [
      ["no token", undefined, "AUTH_REQUIRED", "missing"],
      [
        "alg none",
        `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ sub: "eve", iss: idp.issuer, aud: AUDIENCE, exp: now + 600 })}.`,
        "AUTH_INVALID",
        "algorithm",
      ],
      [
        "HS256 signed with the public key",
        await new SignJWT({ sub: "eve", iss: idp.issuer, aud: AUDIENCE })
          .setProtectedHeader({ alg: "HS256", kid: key.kid })
          .setExpirationTime("1h")
          .sign(new TextEncoder().encode(publicPem)),
        "AUTH_INVALID",
        "algorithm",
      ],
      ["wrong issuer", await idp.sign({ sub: "eve", aud: AUDIENCE, iss: "https://evil.example" }), "AUTH_INVALID", "claim"],
      ["wrong audience", await idp.sign({ sub: "eve", aud: "someone-else" }), "AUTH_INVALID", "claim"],
      ["expired", await idp.sign({ sub: "eve", aud: AUDIENCE, exp: now - 60 }), "TOKEN_EXPIRED", "expired"],
      ["not yet valid", await idp.sign({ sub: "eve", aud: AUDIENCE, nbf: now + 600 }), "AUTH_INVALID", "claim"],
      ["garbage", "definitely-not-a-jwt", "AUTH_INVALID", "malformed"],
    ];
    for (const [label, token, code, reason] of cases) {
      const response = await fetch(server.url("/api/whoami"), { headers: token === undefined ? {} : bearer(token) });
      expect(response.status, label).toBe(401);
      expect(response.headers.get("content-type"), label).toContain("application/json");
      expect(response.headers.get("www-authenticate"), label).toMatch(/^Bearer realm="conduit"/);
      const text = await response.text();
      const body = JSON.parse(text);
      expect(body.error, label).toMatchObject({ code, category: "AUTHENTICATION" });
      if (token) expect(text, label).not.toContain(token);
      expect(events.at(-1), label).toMatchObject({ provider: "jwt", reason, code, path: "/api/whoami", method: "GET" });
    }
    expect(events).toHaveLength(cases.length);
  });

  it("fails closed with 503 AUTH_PROVIDER_UNAVAILABLE while the key set answers 5xx, and recovers", async () => {
    const outage = await startIdentityServer();
    try {
      const provider = createJwtProvider({ jwksUrl: outage.jwksUrl, verifiedCacheTtlMs: 0 }, { sessions: false });
      const server = await start(setup(provider));
      const token = await outage.sign({ sub: "u1" });
      outage.failWith(503);
      const refused = await fetch(server.url("/api/whoami"), { headers: bearer(token) });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect((await refused.json()).error).toMatchObject({ code: "AUTH_PROVIDER_UNAVAILABLE", category: "EXTERNAL", retryAfter: 5 });
      outage.failWith(undefined);
      expect((await fetch(server.url("/api/whoami"), { headers: bearer(token) })).status).toBe(200);
    } finally {
      await outage.close();
    }
  });
});

forEachAdapter("auth providers: sessions and the auth routes", ({ start }) => {
  it("GET /api/auth/me answers the user and the session bound to the token; the same token reuses it", async () => {
    const { provider } = jwtProvider();
    const server = await start(setup(provider));
    const token = await idp.sign({
      sub: "alice",
      aud: AUDIENCE,
      email: "alice@example.com",
      roles: ["operator"],
      permissions: ["docs:read"],
      sid: "idp-session-1",
    });
    const first = await (await fetch(server.url("/api/auth/me"), { headers: bearer(token) })).json();
    // Effective roles and permissions: operator inherits viewer and is granted tools:*.
    expect(first.data.user).toEqual({
      id: "alice",
      email: "alice@example.com",
      roles: ["operator", "viewer"],
      permissions: ["docs:read", "tools:*"],
    });
    expect(first.data.session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.data.session.expiresAt).toBeGreaterThan(Date.now());
    const second = await (await fetch(server.url("/api/auth/me"), { headers: bearer(token) })).json();
    expect(second.data.session.id).toBe(first.data.session.id);
    expect((await fetch(server.url("/api/auth/me"))).status).toBe(401);
  });

  it("runs the provider's authenticateRequest flow: the session a direct call picks is the one HTTP uses; signed out stays refused", async () => {
    const { provider } = jwtProvider();
    const flows: string[] = [];
    const complete = provider.completeRequest.bind(provider);
    provider.completeRequest = (token, ctx, options) => {
      flows.push(ctx?.path ?? "direct");
      return complete(token, ctx, options);
    };
    const cached = provider.completeCached.bind(provider);
    provider.completeCached = (token, options) => {
      const known = cached(token, options);
      if (known) flows.push("cached");
      return known;
    };
    const server = await start(setup(provider));
    const token = await idp.sign({ sub: "flo", aud: AUDIENCE, sid: "flo-laptop" });
    const direct = await provider.authenticateRequest({ authorization: `Bearer ${token}` });
    expect(direct.user.id).toBe("flo");
    const overHttp = await (await fetch(server.url("/api/auth/me"), { headers: bearer(token) })).json();
    expect(overHttp.data.session.id).toBe(direct.session?.id);
    // Verified and bound moments ago by the direct call: HTTP answers from the flow's cached path.
    expect(flows).toEqual(["direct", "cached"]);
    // Signed out: the same credential is refused by the flow, over HTTP and directly.
    await provider.destroySession(direct.session?.id as string);
    const refused = await fetch(server.url("/api/auth/me"), { headers: bearer(token) });
    expect((await refused.json()).error.code).toBe("SESSION_EXPIRED");
    await expect(provider.authenticateRequest({ authorization: `Bearer ${token}` })).rejects.toMatchObject({ code: "SESSION_EXPIRED" });
    // Another device of the same user gets a session of its own.
    const phone = await idp.sign({ sub: "flo", aud: AUDIENCE, sid: "flo-phone" });
    expect((await fetch(server.url("/api/auth/me"), { headers: bearer(phone) })).status).toBe(200);
  });

  it("lists the caller's sessions, destroys one (its token is then refused) or all, and never touches another user's", async () => {
    const { provider, events } = jwtProvider();
    const server = await start(setup(provider));
    const phone = await idp.sign({ sub: "bob", aud: AUDIENCE, sid: "phone" });
    const laptop = await idp.sign({ sub: "bob", aud: AUDIENCE, sid: "laptop" });
    const carol = await idp.sign({ sub: "carol", aud: AUDIENCE, sid: "c" });
    const phoneSession = (await (await fetch(server.url("/api/auth/me"), { headers: bearer(phone) })).json()).data.session.id;
    const laptopSession = (await (await fetch(server.url("/api/auth/me"), { headers: bearer(laptop) })).json()).data.session.id;
    const carolSession = (await (await fetch(server.url("/api/auth/me"), { headers: bearer(carol) })).json()).data.session.id;

    const listed = await (await fetch(server.url("/api/auth/sessions"), { headers: bearer(laptop) })).json();
    expect(listed.data.total).toBe(2);
    expect(listed.data.sessions.map((session: { id: string }) => session.id).sort()).toEqual([phoneSession, laptopSession].sort());
    expect(listed.data.sessions.find((session: { id: string }) => session.id === laptopSession).current).toBe(true);

    const foreign = await fetch(server.url(`/api/auth/sessions/${carolSession}`), { method: "DELETE", headers: bearer(laptop) });
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.code).toBe("SESSION_NOT_FOUND");

    const signOut = await fetch(server.url(`/api/auth/sessions/${phoneSession}`), { method: "DELETE", headers: bearer(laptop) });
    expect(await signOut.json()).toMatchObject({ data: { destroyed: true, id: phoneSession } });
    const refused = await fetch(server.url("/api/whoami"), { headers: bearer(phone) });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe("SESSION_EXPIRED");
    expect(events.at(-1)).toMatchObject({ reason: "session", userId: "bob" });

    const all = await fetch(server.url("/api/auth/sessions"), { method: "DELETE", headers: bearer(laptop) });
    expect(await all.json()).toMatchObject({ data: { destroyed: 1 } });
    expect((await fetch(server.url("/api/whoami"), { headers: bearer(laptop) })).status).toBe(401);
    expect((await fetch(server.url("/api/whoami"), { headers: bearer(carol) })).status).toBe(200);
  });

  it("answers 503 STORE_UNAVAILABLE (not a bare 500) while the session store is down", async () => {
    const down = async () => {
      throw new Error("connect ECONNREFUSED 127.0.0.1:6390");
    };
    const store = { get: down, save: down, delete: down, listByUser: down, deleteByUser: down, revoke: down, isRevoked: down };
    const provider = createJwtProvider(
      { jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: AUDIENCE },
      { sessions: new SessionManager({ store }) },
    );
    const server = await start(setup(provider));
    const response = await fetch(server.url("/api/whoami"), { headers: bearer(await idp.sign({ sub: "sam", aud: AUDIENCE })) });
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(JSON.parse(text).error).toMatchObject({ code: "STORE_UNAVAILABLE" });
    expect(text).not.toContain("ECONNREFUSED");
  });

  it("optional auth lets anonymous and refused callers through without a user", async () => {
    const { provider, events } = jwtProvider();
    const server = await start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        adapter.registerMiddleware(createProviderAuthMiddleware(provider, { optional: true, ambientContext: true }));
        adapter.registerRoute(whoAmI);
      },
    });
    expect((await (await fetch(server.url("/api/whoami"))).json()).data.user).toBeNull();
    expect((await (await fetch(server.url("/api/whoami"), { headers: bearer("bad") })).json()).data.user).toBeNull();
    const token = await idp.sign({ sub: "dora", aud: AUDIENCE });
    expect((await (await fetch(server.url("/api/whoami"), { headers: bearer(token) })).json()).data.user).toBe("dora");
    expect(events).toEqual([]);
  });
});

forEachAdapter("auth providers: role enforcement", ({ start }) => {
  it("answers 403 FORBIDDEN by rule, with hierarchy, role permissions and the super-admin bypass", async () => {
    const { provider, events } = jwtProvider();
    const server = await start(
      setup(provider, (adapter) => {
        adapter.registerMiddleware(
          createAuthorizationRulesMiddleware({
            policy: provider.rbac,
            provider,
            rules: [
              { path: "/api/tools/*", methods: ["POST"], permissions: ["tools:execute"] },
              { path: "/api/whoami", roles: ["viewer"] },
            ],
          }),
        );
        adapter.registerRoute(toolRoute);
      }),
    );
    const call = async (claims: Record<string, unknown>) => {
      const token = await idp.sign({ aud: AUDIENCE, ...claims });
      return fetch(server.url("/api/tools/calculator/execute"), { method: "POST", headers: bearer(token) });
    };
    const admin = await call({ sub: "ann", roles: ["admin"] }); // admin → operator → tools:*
    expect(admin.status).toBe(200);
    expect((await admin.json()).data).toEqual({ ran: "calculator", by: "ann" });
    const viewer = await call({ sub: "vic", roles: ["viewer"] });
    expect(viewer.status).toBe(403);
    expect((await viewer.json()).error).toMatchObject({ code: "FORBIDDEN", category: "AUTHORIZATION" });
    expect(events.at(-1)).toMatchObject({ reason: "permissions", code: "FORBIDDEN", userId: "vic" });
    expect((await call({ sub: "root", roles: ["super_admin"] })).status).toBe(200);
    expect((await call({ sub: "pat", permissions: ["tools:execute"] })).status).toBe(200);
    // The role rule: inherited viewer passes, a stranger does not.
    const whoami = async (roles: string[]) =>
      fetch(server.url("/api/whoami"), { headers: bearer(await idp.sign({ sub: "w", aud: AUDIENCE, roles })) });
    expect((await whoami(["operator"])).status).toBe(200);
    expect((await whoami(["guest"])).status).toBe(403);
    // GET on the tools prefix is outside the POST rule.
    expect(
      (await fetch(server.url("/api/tools/calculator/execute"), { headers: bearer(await idp.sign({ sub: "x", aud: AUDIENCE })) })).status,
    ).not.toBe(403);
  });
});

forEachAdapter("auth providers: context helpers", ({ start }) => {
  it("keep hundreds of concurrent requests from different users apart", async () => {
    const { provider } = jwtProvider();
    const server = await start(setup(provider));
    const users = Array.from({ length: 25 }, (_, index) => `user-${index}`);
    const tokens = new Map(
      await Promise.all(users.map(async (id) => [id, await idp.sign({ sub: id, aud: AUDIENCE, roles: [`r-${id}`] })] as const)),
    );
    const requests = Array.from({ length: 300 }, (_, index) => users[index % users.length] as string);
    const answers = await Promise.all(
      requests.map(async (id) => {
        const response = await fetch(server.url("/api/whoami"), { headers: bearer(tokens.get(id) as string) });
        return { id, body: (await response.json()).data };
      }),
    );
    const sessionsByUser = new Map<string, Set<string>>();
    for (const { id, body } of answers) {
      expect(body).toMatchObject({ user: id, sameAsCtx: true, isOwnRole: true });
      sessionsByUser.set(id, (sessionsByUser.get(id) ?? new Set()).add(body.session));
    }
    // One session per user's token, never another user's.
    for (const sessions of sessionsByUser.values()) expect(sessions.size).toBe(1);
    expect(new Set([...sessionsByUser.values()].flatMap((set) => [...set])).size).toBe(users.length);
  });
});
