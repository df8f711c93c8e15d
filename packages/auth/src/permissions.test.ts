import { describe, expect, it } from "vitest";
import { effectivePermissions, expandRoles, hasPermissionIn, permissionCovers } from "./permissions.js";

describe("permissionCovers", () => {
  it("matches hierarchical wildcards", () => {
    expect(permissionCovers("tools:*", "tools:execute")).toBe(true);
    expect(permissionCovers("tools:*", "tools:mcp:call")).toBe(true);
    expect(permissionCovers("tools:mcp:*", "tools:mcp:call")).toBe(true);
    expect(permissionCovers("*", "anything:at:all")).toBe(true);
    expect(permissionCovers("tools:execute", "tools:execute")).toBe(true);
  });

  it("never widens a grant", () => {
    expect(permissionCovers("tools:*", "tools")).toBe(false);
    expect(permissionCovers("tools:*", "toolsmith:execute")).toBe(false);
    expect(permissionCovers("tools:execute", "tools:*")).toBe(false);
    expect(permissionCovers("tools:mcp:*", "tools:execute")).toBe(false);
    expect(permissionCovers("tools*", "tools:execute")).toBe(false);
    expect(hasPermissionIn([], "a")).toBe(false);
  });
});

describe("roles", () => {
  it("expands the hierarchy transitively and survives cycles", () => {
    const hierarchy = { admin: ["editor"], editor: ["viewer"], viewer: ["admin"] };
    expect(expandRoles(["editor"], hierarchy).sort()).toEqual(["admin", "editor", "viewer"]);
    expect(expandRoles(["constructor"], {})).toEqual(["constructor"]);
  });

  it("adds the permissions of every role", () => {
    expect(effectivePermissions(["a:read"], ["editor", "ghost"], { editor: ["a:write"], toString: ["x"] }).sort()).toEqual([
      "a:read",
      "a:write",
    ]);
  });
});
