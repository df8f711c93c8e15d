/**
 * A key prefix whose keys all hash to one Redis Cluster slot: the prefix itself becomes the
 * hash tag (`conduit:auth:` → `{conduit:auth}:`), so a Lua script or a MULTI touching several
 * of a store's keys runs on one node, as Redis Cluster requires. A prefix that already holds a
 * tag (`{tenant-a}:auth:`) is kept as it is: Redis hashes the first `{…}` only. On one server
 * or with sentinels the tag is just part of the name.
 *
 * Use it for stores whose scripts span keys (sessions and their per-user index, conversation
 * memory and its session index, the proxy pool); keep one-key stores (rate limits, cache)
 * untagged so their keys spread over every primary.
 *
 * @example
 * slotPrefix("conduit:auth:"); // "{conduit:auth}:"
 * slotPrefix("{acme}:auth:"); // "{acme}:auth:"
 */
export function slotPrefix(prefix: string): string {
  if (/\{[^}]+\}/.test(prefix)) return prefix;
  const name = prefix.replace(/:+$/, "");
  return name === "" ? "{conduit}:" : `{${name}}:`;
}

/**
 * A key's hash tag made from `part`: braces removed, so a user-supplied id can never open or
 * close a tag of its own.
 *
 * @example
 * hashTag("2026-11-26T17"); // "{2026-11-26T17}"
 */
export function hashTag(part: string): string {
  return `{${part.replace(/[{}]/g, "_")}}`;
}
