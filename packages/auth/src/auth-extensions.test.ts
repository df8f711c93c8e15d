import { ServerAdapterError } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { createPipeline } from "../test/pipeline.js";
import {
  getAuthContext,
  getCurrentSession,
  getCurrentUser,
  hasPermission,
  hasRole,
  requireRole,
  updateAuthContext,
} from "./auth-context.js";
import { createAuthMiddleware } from "./auth-middleware.js";
import { createAuthRoutes } from "./auth-routes.js";
import type { AuthRefusal } from "./auth-types.js";
import { authorizationDecision } from "./authorization-middleware.js";
import { findRoleCycle } from "./permissions.js";

const users: Record<string, { id: string; roles: string[]; permissions: string[] }> = {
  a: { id: "alice", roles: ["admin"], permissions: ["docs:*"] },
  b: { id: "bob", roles: ["viewer"], permissions: [] },
};

describe("auth middleware extensions", () => {
  it("calls onRefused on every refusal with the reason, and passes a validator's own 401 through", async () => {
    const refusals: Array<{ reason: AuthRefusal["reason"]; code: string }> = [];
    const expired = new ServerAdapterError("Token expired", { code: "TOKEN_EXPIRED", statusCode: 401, category: "AUTHENTICATION" });
    const call = createPipeline([
      createAuthMiddleware({
        type: "bearer",
        validate: (token) => {
          if (token === "old") throw expired;
          if (token === "broken") throw new Error("db down");
          return users[token] ?? null;
        },
        onRefused: (refusal) => refusals.push({ reason: refusal.reason, code: (refusal.error as ServerAdapterError).code }),
      }),
    ]);
    expect((await call({ url: "/api/private" })).status).toBe(401);
    expect((await call({ url: "/api/private", headers: { authorization: "Bearer" } })).status).toBe(401);
    expect((await call({ url: "/api/private", headers: { authorization: "Bearer nobody" } })).status).toBe(401);
    const old = await call({ url: "/api/private", headers: { authorization: "Bearer old" } });
    expect(old.json.error).toMatchObject({ code: "TOKEN_EXPIRED", message: "Token expired" });
    expect(old.headers["www-authenticate"]).toContain('error="invalid_token"');
    const broken = await call({ url: "/api/private", headers: { authorization: "Bearer broken" } });
    expect(broken.json.error.code).toBe("AUTH_INVALID");
    expect(JSON.stringify(broken.json)).not.toContain("db down");
    expect(refusals).toEqual([
      { reason: "missing", code: "AUTH_REQUIRED" },
      { reason: "malformed", code: "AUTH_INVALID" },
      { reason: "invalid", code: "AUTH_INVALID" },
      { reason: "invalid", code: "TOKEN_EXPIRED" },
      { reason: "invalid", code: "AUTH_INVALID" },
    ]);
  });

  it("makes the record ambient only with ambientContext, and never leaks it between requests", async () => {
    const handler = async () => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      return {
        user: getCurrentUser()?.id ?? null,
        admin: hasRole("admin"),
        docs: hasPermission("docs:write"),
        session: getCurrentSession()?.id ?? null,
      };
    };
    const attach = createAuthMiddleware({
      type: "bearer",
      validate: (token) => users[token] ?? null,
      ambientContext: true,
      onAuthenticated: (user, ctx) => updateAuthContext(ctx, { session: { id: `s-${user.id}`, expiresAt: 1 } }),
    });
    const call = createPipeline([attach], ["/api/private"], handler);
    const answers = await Promise.all(
      Array.from({ length: 60 }, async (_, index) => {
        const token = index % 2 === 0 ? "a" : "b";
        return { token, body: (await call({ url: "/api/private", headers: { authorization: `Bearer ${token}` } })).json.data };
      }),
    );
    for (const { token, body } of answers) {
      expect(body).toEqual(
        token === "a"
          ? { user: "alice", admin: true, docs: true, session: "s-alice" }
          : { user: "bob", admin: false, docs: false, session: "s-bob" },
      );
    }
    const off = createPipeline(
      [createAuthMiddleware({ type: "bearer", validate: (token) => users[token] ?? null })],
      ["/api/private"],
      handler,
    );
    expect((await off({ url: "/api/private", headers: { authorization: "Bearer a" } })).json.data.user).toBeNull();
    expect(getCurrentUser()).toBeUndefined();
    expect(() => requireRole("admin")).toThrow("Authentication required");
  });

  it("keeps the record out of state and serialization", async () => {
    const call = createPipeline(
      [createAuthMiddleware({ type: "bearer", validate: (token) => users[token] ?? null })],
      ["/api/private"],
      (ctx) => ({
        keys: Object.keys(ctx),
        state: JSON.stringify(ctx.state),
        record: getAuthContext(ctx)?.token,
      }),
    );
    const body = (await call({ url: "/api/private", headers: { authorization: "Bearer a" } })).json.data;
    expect(body.record).toBe("a");
    expect(body.state).toBe("{}");
    expect(body.keys.some((key: string) => key.includes("record"))).toBe(false);
  });
});

describe("roles", () => {
  it("finds hierarchy cycles (and self-loops), and none in a tree", () => {
    expect(findRoleCycle({ admin: ["editor"], editor: ["viewer"] })).toBeUndefined();
    expect(findRoleCycle({ a: ["a"] })).toEqual(["a", "a"]);
    expect(findRoleCycle({ x: ["y"], y: ["z"], z: ["y"] })).toEqual(["y", "z", "y"]);
    expect(findRoleCycle({ constructor: ["toString"] })).toBeUndefined();
  });

  it("says which step refused", async () => {
    const user = { id: "u", roles: ["viewer"], permissions: ["docs:read"] };
    expect(await authorizationDecision(user, undefined, { requiredRoles: ["admin"] })).toEqual({ allowed: false, refusedBy: "roles" });
    expect(await authorizationDecision(user, undefined, { requiredPermissions: ["docs:write"] })).toEqual({
      allowed: false,
      refusedBy: "permissions",
    });
    expect(await authorizationDecision(user, undefined, { authorize: () => false })).toEqual({ allowed: false, refusedBy: "authorize" });
    expect(await authorizationDecision(user, undefined, { superAdminRoles: ["viewer"], requiredRoles: ["admin"] })).toEqual({
      allowed: true,
    });
  });
});

describe("auth routes without sessions", () => {
  it("answer me with session null, an empty list, and 404 for any session id", async () => {
    const group = createAuthRoutes();
    const routes = group.routes.map((route) => `${route.method} ${group.prefix}${route.path}`);
    expect(routes).toEqual(["GET /auth/me", "GET /auth/sessions", "DELETE /auth/sessions/:id", "DELETE /auth/sessions"]);
    const me = group.routes[0];
    const ctx = { user: users.a } as never;
    expect(await me?.handler(ctx)).toEqual({ user: { id: "alice", roles: ["admin"], permissions: ["docs:*"] }, session: null });
    expect(await group.routes[1]?.handler(ctx)).toEqual({ sessions: [], total: 0 });
    await expect(
      Promise.resolve().then(() => group.routes[2]?.handler({ user: users.a, params: { id: "x" } } as never)),
    ).rejects.toMatchObject({ code: "SESSION_NOT_FOUND", statusCode: 404 });
    await expect(Promise.resolve().then(() => me?.handler({} as never))).rejects.toMatchObject({ statusCode: 401 });
  });
});
