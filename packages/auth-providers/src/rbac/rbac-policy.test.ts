import { expandRoles, permissionCovers } from "@conduit-ai/auth";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RbacPolicy } from "./rbac-policy.js";

const roleName = fc.constantFrom("admin", "editor", "viewer", "operator", "auditor", "guest", "constructor", "__proto__");
const segment = fc.constantFrom("tools", "memory", "docs", "execute", "read", "write", "mcp");
const permission = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(":"));
/** An acyclic hierarchy: a role only inherits roles that come later in a fixed order. */
const ORDER = ["admin", "operator", "editor", "auditor", "viewer", "guest"];
const acyclicHierarchy = fc
  .array(fc.tuple(fc.integer({ min: 0, max: ORDER.length - 2 }), fc.integer({ min: 1, max: ORDER.length - 1 })), { maxLength: 12 })
  .map((edges) => {
    const hierarchy: Record<string, string[]> = {};
    for (const [from, offset] of edges) {
      const to = Math.min(ORDER.length - 1, from + offset);
      if (to === from) continue;
      const role = ORDER[from] as string;
      hierarchy[role] = [...(hierarchy[role] ?? []), ORDER[to] as string];
    }
    return hierarchy;
  });

/** Reachability by plain recursion, the definition the policy must agree with. */
function reachable(roles: string[], hierarchy: Record<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const visit = (role: string) => {
    if (seen.has(role)) return;
    seen.add(role);
    for (const next of Object.hasOwn(hierarchy, role) ? (hierarchy[role] ?? []) : []) visit(next);
  };
  for (const role of roles) visit(role);
  return seen;
}

describe("RBAC policy (property tests)", () => {
  it("expands roles to exactly the transitively inherited set", () => {
    fc.assert(
      fc.property(acyclicHierarchy, fc.array(roleName, { maxLength: 4 }), (hierarchy, roles) => {
        const policy = new RbacPolicy({ hierarchy, superAdminRoles: [] });
        const user = { id: "u", roles, permissions: [] };
        expect(new Set(policy.effectiveRoles(user))).toEqual(reachable(roles, hierarchy));
      }),
    );
  });

  it("a role grants its permissions to every role above it in the hierarchy", async () => {
    await fc.assert(
      fc.asyncProperty(acyclicHierarchy, fc.constantFrom(...ORDER), permission, async (hierarchy, role, granted) => {
        const policy = new RbacPolicy({ hierarchy, rolePermissions: { [role]: [granted] }, superAdminRoles: [] });
        for (const holder of ORDER) {
          const user = { id: "u", roles: [holder], permissions: [] };
          const expected = reachable([holder], hierarchy).has(role);
          expect(policy.hasAllPermissions(user, [granted])).toBe(expected);
          expect((await policy.decide(user, { permissions: [granted] })).allowed).toBe(expected);
        }
      }),
    );
  });

  it("a wildcard grant covers exactly the permissions under its prefix", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 2 }), permission, (prefix, required) => {
        const grant = `${prefix.join(":")}:*`;
        const policy = new RbacPolicy({ superAdminRoles: [] });
        const user = { id: "u", roles: [], permissions: [grant] };
        expect(policy.hasAllPermissions(user, [required])).toBe(required.startsWith(`${prefix.join(":")}:`));
        // A narrow grant never covers the wildcard requirement itself.
        expect(permissionCovers(required, grant)).toBe(required === grant);
      }),
    );
  });

  it("super-admins pass every requirement; nobody else passes a requirement they lack", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(roleName, { maxLength: 3 }), fc.array(permission, { maxLength: 3 }), async (roles, permissions) => {
        const policy = new RbacPolicy();
        expect(
          (await policy.decide({ id: "root", roles: ["root"], permissions: [] }, { roles, permissions, requireAllRoles: true })).allowed,
        ).toBe(true);
        expect((await policy.decide({ id: "sa", roles: ["super_admin"], permissions: [] }, { roles, permissions })).allowed).toBe(true);
        const nobody = await policy.decide({ id: "n", roles: [], permissions: [] }, { roles, permissions });
        expect(nobody.allowed).toBe(roles.length === 0 && permissions.length === 0);
      }),
    );
  });

  it("any role by default, all roles with requireAllRoles", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(roleName, { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(roleName, { maxLength: 4 }),
        async (required, held) => {
          const policy = new RbacPolicy({ superAdminRoles: [] });
          const user = { id: "u", roles: held, permissions: [] };
          expect((await policy.decide(user, { roles: required })).allowed).toBe(required.some((role) => held.includes(role)));
          expect((await policy.decide(user, { roles: required, requireAllRoles: true })).allowed).toBe(
            required.every((role) => held.includes(role)),
          );
        },
      ),
    );
  });

  it("detects any cycle at config time, naming it", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...ORDER), { minLength: 1, maxLength: 5 }), (loop) => {
        const hierarchy: Record<string, string[]> = {};
        loop.forEach((role, index) => {
          hierarchy[role] = [loop[(index + 1) % loop.length] as string];
        });
        expect(() => new RbacPolicy({ hierarchy })).toThrow(/Role hierarchy has a cycle/);
      }),
    );
    expect(() => new RbacPolicy({ hierarchy: { admin: ["editor"], editor: ["viewer"], viewer: ["admin"] } })).toThrow(
      "Role hierarchy has a cycle: admin → editor → viewer → admin",
    );
    // The expansion itself never loops, even on a hierarchy built without the check.
    expect(expandRoles(["a"], { a: ["b"], b: ["a"] }).sort()).toEqual(["a", "b"]);
  });
});

describe("RBAC policy flow", () => {
  it("runs the steps in order: 401 without a user, custom authorize → 403, roles, permissions", async () => {
    const policy = new RbacPolicy({
      hierarchy: { admin: ["editor"] },
      rolePermissions: { editor: ["docs:*"] },
      authorize: (user) => user.metadata?.suspended !== true,
    });
    expect(await policy.decide(undefined, {})).toEqual({ allowed: false, status: 401, refusedBy: "authentication" });
    const admin = { id: "a", roles: ["admin"], permissions: [] };
    expect(await policy.decide(admin, { roles: ["editor"], permissions: ["docs:write"] })).toEqual({ allowed: true });
    expect(await policy.decide({ ...admin, metadata: { suspended: true } }, {})).toEqual({
      allowed: false,
      status: 403,
      refusedBy: "authorize",
    });
    expect(await policy.decide(admin, { roles: ["auditor"] })).toEqual({ allowed: false, status: 403, refusedBy: "roles" });
    expect(await policy.decide(admin, { permissions: ["tools:execute"] })).toEqual({
      allowed: false,
      status: 403,
      refusedBy: "permissions",
    });
    const bypass = new RbacPolicy({ superAdminRoles: ["owner"], authorize: () => false });
    expect(await bypass.decide({ id: "o", roles: ["owner"], permissions: [] }, { roles: ["x"] })).toEqual({ allowed: true });
  });
});
