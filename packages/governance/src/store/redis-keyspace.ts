/**
 * Names of the Redis store's keys that more than one file needs (the store, the lost-call sweeper).
 * Every key of a key's or team's calls carries one hash tag — the team's (`{ns:t:<team>}`) or,
 * for a key without a team, the key's own — so each script runs in one slot of a cluster.
 */

/** The outbox stream usage events go to (`{tag}:outbox:usage`). */
export const USAGE_STREAM = "usage";

/** The outbox stream audit events go to (`{ns:audit}:outbox:audit`). */
export const AUDIT_STREAM = "audit";

/**
 * The one hash tag of the audit outbox: the log has one chain, so every process appends under the
 * same tag, and the sweeper visits it as a standing tag (a dead process's events are drained).
 */
export function auditTagOf(namespace: string): string {
  return `{${namespace}:audit}`;
}

/** The hash tag, braces included, of a key's records and counters: its team's, else its own. */
export function hashTagOf(namespace: string, keyId: string, team: string | undefined): string {
  return team ? `{${namespace}:t:${team}}` : `{${namespace}:k:${keyId}}`;
}

/** A tag's open calls: records by lease id, and their lease expiries (when a sweeper may take them). */
export function openCallKeys(tag: string): { calls: string; due: string } {
  return { calls: `${tag}:calls`, due: `${tag}:calls:due` };
}

/**
 * Tags of deleted keys and teams (by when): the sweeper still visits them, since a call or a
 * usage event may have outlived its key, until nothing is left there.
 */
export function retiredTagsKey(namespace: string): string {
  return `${namespace}:tags:retired`;
}
