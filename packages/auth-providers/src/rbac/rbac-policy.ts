import {
  type AuthorizationOptions,
  type AuthorizationRefusal,
  type RoleHierarchy,
  type RolePermissions,
  authorizationDecision,
  effectivePermissions,
  expandRoles,
  findRoleCycle,
  hasPermissionIn,
} from "@conduit-ai/auth";
import type { ServerContext } from "@conduit-ai/server-core";
import { InvalidConfigurationError } from "../errors/auth-errors.js";
import type { AuthenticatedUser, AuthorizationRequirement } from "../types.js";

/** Holders of these roles pass every check unless `superAdminRoles` says otherwise. */
export const DEFAULT_SUPER_ADMIN_ROLES = ["super_admin", "root"];

export interface RbacOptions {
  /** Default `["super_admin", "root"]`; `[]` turns the bypass off. */
  superAdminRoles?: string[];
  /** Role → roles it inherits, transitively. A cycle is refused when the policy is created. */
  hierarchy?: RoleHierarchy;
  /** Role → permissions it grants (wildcards allowed: `tools:*`). */
  rolePermissions?: RolePermissions;
  /** A rule of your own that may deny (anything but `true`, or a throw, is a denial → 403). */
  authorize?: (user: AuthenticatedUser, ctx: ServerContext | undefined) => boolean | Promise<boolean>;
}

export type RbacDecision = { allowed: true } | { allowed: false; status: 401 | 403; refusedBy: AuthorizationRefusal | "authentication" };

/**
 * The spec's 7-step role enforcement flow as a policy object: no user → 401; a super-admin
 * role bypasses everything; roles expanded through the hierarchy; effective permissions =
 * the user's own + those of every expanded role; custom `authorize`; roles (any, or all with
 * `requireAllRoles`); all required permissions (hierarchical wildcards). Refusals → 403.
 *
 * @example
 * const policy = new RbacPolicy({ hierarchy: { admin: ["editor"], editor: ["viewer"] }, rolePermissions: { viewer: ["docs:read"] } });
 * await policy.decide(user, { permissions: ["docs:read"] }); // { allowed: true } for an admin
 */
export class RbacPolicy {
  readonly superAdminRoles: readonly string[];
  readonly hierarchy: RoleHierarchy;
  readonly rolePermissions: RolePermissions;
  readonly #authorize: RbacOptions["authorize"];

  constructor(options: RbacOptions = {}, provider = "rbac") {
    this.superAdminRoles = options.superAdminRoles ?? DEFAULT_SUPER_ADMIN_ROLES;
    this.hierarchy = options.hierarchy ?? {};
    this.rolePermissions = options.rolePermissions ?? {};
    this.#authorize = options.authorize;
    const cycle = findRoleCycle(this.hierarchy);
    if (cycle) {
      throw new InvalidConfigurationError(provider, `Role hierarchy has a cycle: ${cycle.join(" → ")}`, {
        details: { issues: [{ path: "authorization.hierarchy", message: `cycle ${cycle.join(" → ")}` }], cycle },
      });
    }
  }

  isSuperAdmin(user: AuthenticatedUser): boolean {
    return user.roles.some((role) => this.superAdminRoles.includes(role));
  }

  /** The user's roles plus every inherited one. */
  effectiveRoles(user: AuthenticatedUser): string[] {
    return expandRoles(user.roles, this.hierarchy);
  }

  /** The user's permissions plus those of every effective role. */
  effectivePermissions(user: AuthenticatedUser): string[] {
    return effectivePermissions(user.permissions, this.effectiveRoles(user), this.rolePermissions);
  }

  /**
   * The user with effective roles and permissions, as handlers should see them: `hasRole`,
   * `requirePermission` and `/api/auth/me` then agree with the policy; a super-admin gets `*`.
   * Unchanged (same object) when nothing applies.
   */
  applyTo(user: AuthenticatedUser): AuthenticatedUser {
    const superAdmin = this.isSuperAdmin(user) && !user.permissions.includes("*");
    if (!superAdmin && Object.keys(this.hierarchy).length === 0 && Object.keys(this.rolePermissions).length === 0) return user;
    const permissions = this.effectivePermissions(user);
    return { ...user, roles: this.effectiveRoles(user), permissions: superAdmin ? [...permissions, "*"] : permissions };
  }

  /** Any of `roles` (after the hierarchy); super-admins hold every role. */
  hasAnyRole(user: AuthenticatedUser, roles: string[]): boolean {
    if (roles.length === 0 || this.isSuperAdmin(user)) return true;
    const held = this.effectiveRoles(user);
    return roles.some((role) => held.includes(role));
  }

  /** All of `permissions` (with wildcards); super-admins hold every permission. */
  hasAllPermissions(user: AuthenticatedUser, permissions: string[]): boolean {
    if (this.isSuperAdmin(user)) return true;
    const held = this.effectivePermissions(user);
    return permissions.every((permission) => hasPermissionIn(held, permission));
  }

  async decide(
    user: AuthenticatedUser | undefined,
    requirement: AuthorizationRequirement = {},
    ctx?: ServerContext,
  ): Promise<RbacDecision> {
    if (!user) return { allowed: false, status: 401, refusedBy: "authentication" };
    const options: AuthorizationOptions = {
      superAdminRoles: [...this.superAdminRoles],
      roleHierarchy: this.hierarchy,
      rolePermissions: this.rolePermissions,
      ...(this.#authorize
        ? { authorize: (candidate: AuthenticatedUser, context: ServerContext) => this.#authorize?.(candidate, context) ?? true }
        : {}),
      ...(requirement.roles ? { requiredRoles: requirement.roles } : {}),
      requireAllRoles: requirement.requireAllRoles === true,
      ...(requirement.permissions ? { requiredPermissions: requirement.permissions } : {}),
      requireAllPermissions: true,
    };
    const decision = await authorizationDecision(user, ctx, options);
    return decision.allowed ? decision : { allowed: false, status: 403, refusedBy: decision.refusedBy };
  }
}
