import type { AuthProvider } from "../../types.js";

/** The optional user operations of the provider contract (docs/spec.md "Provider interface"). */
export type UserOperationName = "getUser" | "getUserByEmail" | "updateUserMetadata" | "updateUserRoles" | "updateUserPermissions";

/** The user operations a vendor's admin client implements (a vendor leaves out what its API cannot map). */
export type UserOperations = Partial<Required<Pick<AuthProvider, UserOperationName>>>;

/** Names of the user operations, in docs/spec.md's order. */
export const USER_OPERATION_NAMES: readonly UserOperationName[] = [
  "getUser",
  "getUserByEmail",
  "updateUserMetadata",
  "updateUserRoles",
  "updateUserPermissions",
];

/**
 * Puts a vendor admin client's user operations on a provider: afterwards `provider.getUser`
 * and the others exist exactly where the vendor implements them (the `user-management`
 * capability says which types do).
 *
 * @example
 * const provider = attachUserOperations(createVendorProvider(...), createAuth0UserClient(admin));
 * await provider.getUser?.("auth0|123");
 */
export function attachUserOperations<P extends object>(provider: P, operations: UserOperations): P & UserOperations {
  for (const name of USER_OPERATION_NAMES) {
    const operation = operations[name];
    if (operation) Object.defineProperty(provider, name, { value: operation, enumerable: false, writable: false, configurable: true });
  }
  return provider as P & UserOperations;
}

/** Keeps the keys of a role or permission diff in a stable order: what to add, what to remove. */
export function difference(wanted: readonly string[], current: readonly string[]): { add: string[]; remove: string[] } {
  const want = new Set(wanted);
  const have = new Set(current);
  return { add: [...want].filter((item) => !have.has(item)), remove: [...have].filter((item) => !want.has(item)) };
}
