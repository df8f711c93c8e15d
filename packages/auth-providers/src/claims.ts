import type { AuthenticatedUser } from "@conduit-ai/auth";
import { type SettingsShape, setting } from "./config/settings-reader.js";

/** Where a provider finds the user's fields in its claims (dot paths; a key that contains dots, such as a URL, is read whole first). */
export interface ClaimMapping {
  /** Default `sub`. */
  userIdClaim?: string;
  /** Default `email`. */
  emailClaim?: string;
  /** Default `name`. */
  nameClaim?: string;
  /** Claims holding roles: an array of strings, or a space/comma separated string. */
  rolesClaim?: string | string[];
  /** Claims holding permissions, same forms. */
  permissionsClaim?: string | string[];
}

/** The claim at `path`: the whole key when present (`https://example.com/roles`), else a dot path; own properties only. */
export function readClaim(claims: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let current: unknown = claims;
  for (const segment of path.split(".")) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** An array of strings, or a string split on spaces and commas (OAuth `scope`, Cognito groups in some setups). */
export function stringsFrom(value: unknown): string[] {
  if (typeof value === "string") return value.split(/[\s,]+/).filter((item) => item !== "");
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string" && item !== "");
  return [];
}

const unique = (values: string[]) => [...new Set(values)];

/** Every string found under any of `paths`, de-duplicated. */
export function collectClaims(claims: Record<string, unknown>, paths: readonly string[]): string[] {
  return unique(paths.flatMap((path) => stringsFrom(readClaim(claims, path))));
}

const list = (value: string | string[] | undefined, fallback: string[]) =>
  value === undefined ? fallback : Array.isArray(value) ? value : [value];

/**
 * Builds the user from verified claims: id from `userIdClaim` (a token without one names no
 * user and is refused), roles and permissions from their claims plus what the vendor adds.
 * The claims themselves stay in `metadata.claims` for handlers that need more.
 *
 * @example
 * claimsToUser({ sub: "u1", roles: ["admin"] }, { rolesClaim: "roles" }); // { id: "u1", roles: ["admin"], permissions: [], ... }
 */
export function claimsToUser(
  claims: Record<string, unknown>,
  mapping: ClaimMapping,
  defaults: { roles?: string[]; permissions?: string[]; extraRoles?: string[]; extraPermissions?: string[] } = {},
): AuthenticatedUser | undefined {
  const id = readClaim(claims, mapping.userIdClaim ?? "sub");
  if ((typeof id !== "string" || id === "") && typeof id !== "number") return undefined;
  const user: AuthenticatedUser = {
    id: String(id),
    roles: unique([...collectClaims(claims, list(mapping.rolesClaim, defaults.roles ?? ["roles"])), ...(defaults.extraRoles ?? [])]),
    permissions: unique([
      ...collectClaims(claims, list(mapping.permissionsClaim, defaults.permissions ?? ["permissions"])),
      ...(defaults.extraPermissions ?? []),
    ]),
    metadata: { claims },
  };
  const email = readClaim(claims, mapping.emailClaim ?? "email");
  if (typeof email === "string") user.email = email;
  const name = readClaim(claims, mapping.nameClaim ?? "name");
  if (typeof name === "string") user.name = name;
  return user;
}

/** The claim-mapping keys every token-checking provider accepts in its settings. */
export const CLAIM_MAPPING_SETTINGS = {
  userIdClaim: setting.string(),
  emailClaim: setting.string(),
  nameClaim: setting.string(),
  rolesClaim: setting.strings(),
  permissionsClaim: setting.strings(),
} satisfies SettingsShape<ClaimMapping>;
