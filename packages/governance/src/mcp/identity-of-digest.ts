import type { GateIdentity, McpAccessPolicy } from "@conduit-ai/server-core";
import type { GovernanceStore } from "../store/governance-store.js";

/**
 * The identity of a live key's digest with the MCP policies that bind it (its own, then its
 * team's), read from the store without touching a counter: what the MCP gateway needs to list
 * what a key may use. Tool calls themselves go through `admit`, which is authoritative.
 *
 * @example
 * const identity = await identityOfDigest(store, keyDigest(credential, secret));
 * identity?.mcp; // [{ tools: ["github__*", "!github__delete_*"] }]
 */
export async function identityOfDigest(store: GovernanceStore, digest: string): Promise<GateIdentity | undefined> {
  if (!(await store.isActiveDigest(digest, Date.now()))) return undefined;
  const keyId = await store.keyIdOf(digest);
  const key = keyId ? await store.getKey(keyId) : undefined;
  if (!key) return undefined;
  const team = key.team ? await store.getTeam(key.team) : undefined;
  // A key whose team is gone is refused by admit; refuse its listings alike.
  if (key.team && !team) return undefined;
  const mcp: McpAccessPolicy[] = [key.mcp, team?.mcp].filter((policy): policy is McpAccessPolicy => policy !== undefined);
  return {
    keyId: key.id,
    name: key.name,
    ...(key.team ? { team: key.team } : {}),
    ...(key.user ? { user: key.user } : {}),
    ...(mcp.length > 0 ? { mcp } : {}),
  };
}
