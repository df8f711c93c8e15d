import { storeCall } from "@conduit-ai/server-core";
import type { GovernanceStore } from "../store/governance-store.js";
import type { UsageSink } from "../usage/usage-event.js";

/** The store methods the admin API calls. */
export type AdminStore = Pick<
  GovernanceStore,
  | "getKey"
  | "listKeys"
  | "createKey"
  | "updateKey"
  | "deleteKey"
  | "rotateKey"
  | "getTeam"
  | "listTeams"
  | "createTeam"
  | "updateTeam"
  | "deleteTeam"
  | "spendOf"
>;

/** A month of usage may take a while to sum on a large table: bounded, yet far above one Redis call. */
const USAGE_QUERY_DEADLINE_MS = 15_000;

/**
 * The governance store as the admin API uses it: every call that fails (Redis refusing, a
 * cluster moving) or does not answer within `STORE_CALL_DEADLINE_MS` (Redis hung) is 503
 * `STORE_UNAVAILABLE` with `Retry-After`, never a 500.
 *
 * @example
 * const keys = await adminStore(store).listKeys(); // 503 STORE_UNAVAILABLE while Redis is down
 */
export function adminStore(store: GovernanceStore): AdminStore {
  const call = <T>(operation: () => Promise<T>) => storeCall("governance", operation);
  return {
    getKey: (id) => call(() => store.getKey(id)),
    listKeys: () => call(() => store.listKeys()),
    createKey: (record, digest) => call(() => store.createKey(record, digest)),
    updateKey: (record) => call(() => store.updateKey(record)),
    deleteKey: (id) => call(() => store.deleteKey(id)),
    rotateKey: (id, digest, until) => call(() => store.rotateKey(id, digest, until)),
    getTeam: (id) => call(() => store.getTeam(id)),
    listTeams: () => call(() => store.listTeams()),
    createTeam: (record) => call(() => store.createTeam(record)),
    updateTeam: (record) => call(() => store.updateTeam(record)),
    deleteTeam: (id) => call(() => store.deleteTeam(id)),
    spendOf: (scope, clock) => call(() => store.spendOf(scope, clock)),
  };
}

/**
 * The usage history as the admin API queries it: PostgreSQL refusing connections or timing
 * them out is 503 `STORE_UNAVAILABLE` (store `usage-history`) with `Retry-After`, never a 500.
 *
 * @example
 * const rows = await adminUsage(usage).query({ groupBy: "key", from, to });
 */
export function adminUsage(usage: UsageSink): Pick<UsageSink, "query"> {
  return { query: (query) => storeCall("usage-history", () => usage.query(query), USAGE_QUERY_DEADLINE_MS) };
}
