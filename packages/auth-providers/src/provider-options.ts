/**
 * The shapes a provider type shares with the base class: the options every provider takes and
 * what its `verifyToken` returns. Kept apart from `BaseAuthProvider` so the provider factories
 * and the registry can name them without importing the class.
 */
import type { Logger } from "@conduit-ai/server-core";
import type { RbacOptions, RbacPolicy } from "./rbac/rbac-policy.js";
import type { SessionManager, SessionManagerOptions } from "./sessions/session-manager.js";
import type { AuthenticatedUser } from "./types.js";

/** Options every provider type takes beside its own settings. */
export interface ProviderOptions {
  /** Sessions for `authenticateRequest`: a manager, its options, or `false` (stateless). Default: in memory. */
  sessions?: SessionManager | SessionManagerOptions | false;
  /** The role enforcement policy of `authorizeUser`/`authorizeRoles`/`authorizePermissions`. */
  rbac?: RbacPolicy | RbacOptions;
  /** Where the outage lines go (one `warn` when the identity provider stops answering, one when it answers again). Default: JSON lines on stderr. */
  logger?: Logger;
}

/** What a provider type's `verifyToken` returns for a good token. */
export interface VerifiedToken {
  user: AuthenticatedUser;
  claims: Record<string, unknown>;
  /** Epoch ms. */
  expiresAt?: number;
}
