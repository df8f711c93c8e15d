import type { AuthenticatedUser, AuthValidationResult } from "./auth-types.js";

const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string" && item !== "") : [];

/**
 * Turns what a validator returned into an `AuthenticatedUser` with `roles` and
 * `permissions` always set, or `undefined` when it does not name a user (fail closed:
 * a "valid" answer without an id is no identity).
 *
 * @example
 * toAuthenticatedUser({ id: "u1", roles: ["admin"] }); // { id: "u1", roles: ["admin"], permissions: [] }
 * toAuthenticatedUser(null); // undefined
 */
export function toAuthenticatedUser(result: AuthValidationResult): AuthenticatedUser | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const id: unknown = result.id;
  if (typeof id !== "string" || id === "") return undefined;
  const user: AuthenticatedUser = { id, roles: stringsOf(result.roles), permissions: stringsOf(result.permissions) };
  if (typeof result.email === "string") user.email = result.email;
  if (typeof result.name === "string") user.name = result.name;
  if (typeof result.metadata === "object" && result.metadata !== null) user.metadata = result.metadata;
  return user;
}
