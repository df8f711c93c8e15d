import type { AuthResult } from "./auth-types.js";
import { describe, expect, it } from "vitest";
import { createPipeline } from "../test/pipeline.js";
import { createAuthMiddleware } from "./auth-middleware.js";
import { type AuthorizationPolicyOptions, createAuthorizationMiddleware } from "./authorization-middleware.js";
import { createPermissionMiddleware } from "./permission-middleware.js";
import { createRoleMiddleware } from "./role-middleware.js";
import type { MiddlewareDefinition } from "@conduit-ai/server-core";

/** The token is the JSON of the user, so each test states exactly who calls. */
const asUser = (user: AuthResult) => ({ authorization: `Bearer ${Buffer.from(JSON.stringify(user)).toString("base64url")}` });
const auth = createAuthMiddleware({ type: "bearer", validate: (token) => JSON.parse(Buffer.from(token, "base64url").toString()) });
const statusFor = async (guard: MiddlewareDefinition, user?: AuthResult) => {
  const run = createPipeline(user ? [auth, guard] : [guard]);
  const response = await run({ url: "/api/private", headers: user ? asUser(user) : {} });
  return response.status === 403 ? `403 ${response.json.error.code}` : response.status;
};

describe("role middleware", () => {
  it("needs any one role by default and every role with requireAll", async () => {
    const anyRole = createRoleMiddleware({ requiredRoles: ["admin", "operator"] });
    const allRoles = createRoleMiddleware({ requiredRoles: ["admin", "operator"], requireAll: true });
    expect(await statusFor(anyRole, { id: "u", roles: ["operator"] })).toBe(200);
    expect(await statusFor(anyRole, { id: "u", roles: ["viewer"] })).toBe("403 FORBIDDEN");
    expect(await statusFor(allRoles, { id: "u", roles: ["operator"] })).toBe("403 FORBIDDEN");
    expect(await statusFor(allRoles, { id: "u", roles: ["operator", "admin"] })).toBe(200);
  });

  it("answers 401 without a user", async () => {
    expect(await statusFor(createRoleMiddleware({ requiredRoles: ["admin"] }))).toBe(401);
  });

  it("expands the role hierarchy", async () => {
    const guard = createRoleMiddleware({ requiredRoles: ["viewer"], roleHierarchy: { admin: ["editor"], editor: ["viewer"] } });
    expect(await statusFor(guard, { id: "u", roles: ["admin"] })).toBe(200);
    expect(await statusFor(guard, { id: "u", roles: ["guest"] })).toBe("403 FORBIDDEN");
  });
});

describe("permission middleware", () => {
  it("needs every permission by default, any one with requireAll: false", async () => {
    const all = createPermissionMiddleware({ requiredPermissions: ["docs:read", "docs:write"] });
    const any = createPermissionMiddleware({ requiredPermissions: ["docs:read", "docs:write"], requireAll: false });
    expect(await statusFor(all, { id: "u", permissions: ["docs:read"] })).toBe("403 FORBIDDEN");
    expect(await statusFor(all, { id: "u", permissions: ["docs:read", "docs:write"] })).toBe(200);
    expect(await statusFor(any, { id: "u", permissions: ["docs:read"] })).toBe(200);
  });

  it("honors hierarchical wildcards and role permissions", async () => {
    const guard = createPermissionMiddleware({ requiredPermissions: ["tools:execute"], rolePermissions: { operator: ["tools:*"] } });
    expect(await statusFor(guard, { id: "u", permissions: ["tools:*"] })).toBe(200);
    expect(await statusFor(guard, { id: "u", permissions: ["*"] })).toBe(200);
    expect(await statusFor(guard, { id: "u", roles: ["operator"] })).toBe(200);
    expect(await statusFor(guard, { id: "u", permissions: ["tools:list", "memory:*"] })).toBe("403 FORBIDDEN");
  });
});

describe("enforcement flow", () => {
  const policy: AuthorizationPolicyOptions = { superAdminRoles: ["root"] };

  it("lets super-admins bypass every check, even a denying authorize", async () => {
    const guard = createAuthorizationMiddleware({ ...policy, requiredRoles: ["x"], requiredPermissions: ["y"], authorize: () => false });
    expect(await statusFor(guard, { id: "u", roles: ["root"] })).toBe(200);
  });

  it("denies with 403 when authorize returns false or throws", async () => {
    const denying = createAuthorizationMiddleware({ authorize: (user) => user.id === "allowed" });
    const throwing = createAuthorizationMiddleware({
      authorize: () => {
        throw new Error("policy store down");
      },
    });
    expect(await statusFor(denying, { id: "allowed" })).toBe(200);
    expect(await statusFor(denying, { id: "other" })).toBe("403 FORBIDDEN");
    expect(await statusFor(throwing, { id: "allowed" })).toBe("403 FORBIDDEN");
  });
});
