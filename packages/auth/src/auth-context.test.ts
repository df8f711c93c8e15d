import { AuthenticationError, AuthorizationError, type ServerContext } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import {
  getAuthContext,
  getCurrentUser,
  hasPermission,
  hasRole,
  isAuthenticated,
  requireAuth,
  requirePermission,
  requireRole,
  setAuthContext,
} from "./auth-context.js";

// The helpers only read `ctx.user`; a plain object stands in for the rest of the context.
const contextWith = (user?: ServerContext["user"]) => ({ user }) as ServerContext;

describe("context helpers", () => {
  const user = { id: "u", roles: ["editor"], permissions: ["docs:*"] };

  it("report an anonymous request", () => {
    const ctx = contextWith();
    expect(getAuthContext(ctx)).toBeUndefined();
    expect(getCurrentUser(ctx)).toBeUndefined();
    expect(isAuthenticated(ctx)).toBe(false);
    expect(hasRole(ctx, "editor")).toBe(false);
    expect(hasPermission(ctx, "docs:read")).toBe(false);
    expect(() => requireAuth(ctx)).toThrow(AuthenticationError);
    expect(() => requireRole(ctx, "editor")).toThrow(AuthenticationError);
    expect(() => requirePermission(ctx, "docs:read")).toThrow(AuthenticationError);
  });

  it("read the user, roles and wildcard permissions", () => {
    const ctx = contextWith();
    setAuthContext(ctx, { user, type: "bearer", token: "t", claims: {} });
    expect(getCurrentUser(ctx)).toBe(user);
    expect(getAuthContext(ctx)?.type).toBe("bearer");
    expect(isAuthenticated(ctx)).toBe(true);
    expect(hasRole(ctx, "editor")).toBe(true);
    expect(hasPermission(ctx, "docs:read")).toBe(true);
    expect(requirePermission(ctx, "docs:write")).toBe(user);
    expect(requireRole(ctx, "editor")).toBe(user);
    expect(() => requireRole(ctx, "admin")).toThrow(AuthorizationError);
    expect(() => requirePermission(ctx, "tools:execute")).toThrow(AuthorizationError);
  });

  it("keep the credential out of serialized contexts and of their state", () => {
    const ctx = { user: undefined, state: {} } as unknown as ServerContext;
    setAuthContext(ctx, { user, type: "api-key", token: "sk-never-print-me", claims: { plan: "pro" } });
    expect(getAuthContext(ctx)).toMatchObject({ user, type: "api-key", token: "sk-never-print-me", claims: { plan: "pro" } });
    expect(JSON.stringify(ctx)).not.toContain("sk-never-print-me");
    expect(JSON.stringify({ ...ctx.state })).not.toContain("sk-never-print-me");
  });

  it("count a user set by other code", () => {
    expect(getAuthContext(contextWith(user))).toMatchObject({ user, type: "custom" });
  });
});
