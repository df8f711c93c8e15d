import type { GateIdentity, McpAccessPolicy } from "@conduit-ai/server-core";
import type { GovernanceStore } from "../store/governance-store.js";

/** A key or team record the store holds but cannot decode: that key alone is refused (403 `invalid_key_record`), as `admit` does. */
export class UnreadableRecordError extends Error {
  constructor(
    readonly scope: "key" | "team",
    options?: ErrorOptions,
  ) {
    super(`The stored ${scope} record cannot be read`, options);
  }
}

/** `read()`, with a record that is not JSON as an `UnreadableRecordError` (a store outage passes as it is). */
async function readable<T>(scope: "key" | "team", read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof SyntaxError) throw new UnreadableRecordError(scope, { cause: error });
    throw error;
  }
}

/**
 * The identity of a live key's digest with the MCP policies that bind it (its own, then its
 * team's) and its guardrail names (its team's, then its own), read from the store without touching a counter: what the MCP gateway needs to list
 * what a key may use. Tool calls themselves go through `admit`, which is authoritative.
 *
 * @example
 * const identity = await identityOfDigest(store, keyDigest(credential, secret));
 * identity?.mcp; // [{ tools: ["github__*", "!github__delete_*"] }]
 */
export async function identityOfDigest(store: GovernanceStore, digest: string): Promise<GateIdentity | undefined> {
  if (!(await store.isActiveDigest(digest, Date.now()))) return undefined;
  const keyId = await store.keyIdOf(digest);
  const key = keyId ? await readable("key", () => store.getKey(keyId)) : undefined;
  if (!key) return undefined;
  const teamId = key.team;
  const team = teamId ? await readable("team", () => store.getTeam(teamId)) : undefined;
  // A key whose team is gone is refused by admit; refuse its listings alike.
  if (key.team && !team) return undefined;
  const mcp: McpAccessPolicy[] = [key.mcp, team?.mcp].filter((policy): policy is McpAccessPolicy => policy !== undefined);
  // The team's guardrail names, then the key's: the order `!name` resolves in, as `admit` gives them.
  const guardrails = [...(team?.guardrails ?? []), ...(key.guardrails ?? [])];
  return {
    keyId: key.id,
    name: key.name,
    ...(key.team ? { team: key.team } : {}),
    ...(key.user ? { user: key.user } : {}),
    ...(mcp.length > 0 ? { mcp } : {}),
    ...(guardrails.length > 0 ? { guardrails } : {}),
  };
}
