/**
 * Hierarchical wildcard match: `*` covers everything, `tools:*` covers `tools:execute`
 * and `tools:mcp:call`, anything else must be equal.
 *
 * @example
 * permissionCovers("tools:*", "tools:execute"); // true
 * permissionCovers("tools:execute", "tools:*"); // false: a narrow grant never covers a wide requirement
 */
export function permissionCovers(granted: string, required: string): boolean {
  if (granted === required || granted === "*") return true;
  if (granted.endsWith(":*")) return required.startsWith(granted.slice(0, -1));
  return false;
}

/** True when any granted permission covers `required`. */
export function hasPermissionIn(granted: readonly string[], required: string): boolean {
  return granted.some((permission) => permissionCovers(permission, required));
}

/** Role → roles it inherits (`{ admin: ["editor"], editor: ["viewer"] }`). */
export type RoleHierarchy = Readonly<Record<string, readonly string[]>>;
/** Role → permissions it grants. */
export type RolePermissions = Readonly<Record<string, readonly string[]>>;

/**
 * The roles a user effectively holds: their own plus every role inherited through the
 * hierarchy, transitively (cycles are harmless).
 *
 * @example
 * expandRoles(["admin"], { admin: ["editor"], editor: ["viewer"] }); // ["admin", "editor", "viewer"]
 */
export function expandRoles(roles: readonly string[], hierarchy: RoleHierarchy = {}): string[] {
  const expanded = new Set<string>();
  const pending = [...roles];
  while (pending.length > 0) {
    const role = pending.pop() as string;
    if (expanded.has(role)) continue;
    expanded.add(role);
    // Own-property check: a role named "constructor" must not walk Object.prototype.
    if (Object.hasOwn(hierarchy, role)) pending.push(...(hierarchy[role] ?? []));
  }
  return [...expanded];
}

/**
 * Direct permissions plus those mapped to every (already expanded) role.
 *
 * @example
 * effectivePermissions(["docs:read"], ["editor"], { editor: ["docs:write"] }); // ["docs:read", "docs:write"]
 */
export function effectivePermissions(direct: readonly string[], roles: readonly string[], rolePermissions: RolePermissions = {}): string[] {
  const permissions = new Set(direct);
  for (const role of roles) {
    if (Object.hasOwn(rolePermissions, role)) for (const permission of rolePermissions[role] ?? []) permissions.add(permission);
  }
  return [...permissions];
}

/**
 * A cycle of the hierarchy as the list of roles walked (`["a", "b", "a"]`), or undefined.
 * Depth-first with colors: each role is finished once, so this is linear in the hierarchy's size.
 *
 * @example
 * findRoleCycle({ admin: ["editor"], editor: ["admin"] }); // ["admin", "editor", "admin"]
 */
export function findRoleCycle(hierarchy: RoleHierarchy): string[] | undefined {
  const finished = new Set<string>();
  const onPath = new Map<string, number>();
  const path: string[] = [];
  const visit = (role: string): string[] | undefined => {
    const start = onPath.get(role);
    if (start !== undefined) return [...path.slice(start), role];
    if (finished.has(role)) return undefined;
    onPath.set(role, path.length);
    path.push(role);
    for (const inherited of Object.hasOwn(hierarchy, role) ? (hierarchy[role] ?? []) : []) {
      const cycle = visit(inherited);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(role);
    finished.add(role);
    return undefined;
  };
  for (const role of Object.keys(hierarchy)) {
    const cycle = visit(role);
    if (cycle) return cycle;
  }
  return undefined;
}
