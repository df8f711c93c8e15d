import type { GateUsage, RawResponse, ServerContext } from "@conduit-ai/server-core";
import { CACHE_HEADER, type ResponseCache } from "./response-cache.js";

/** What a surface's admission tells the cache: whose answers may be shared, the key's choice, and where a hit settles. */
export interface CacheAdmission {
  readonly cacheScope: string;
  readonly cacheWanted?: boolean;
  settle(usage: GateUsage): void;
}

/** One call's place in the response cache. */
export interface CacheCall {
  /** The stored answer, already settled at $0 with what it saved; undefined on a miss. */
  hit: RawResponse | undefined;
  /** Marks a miss and stores its answer once it has gone out whole. */
  capture(response: RawResponse): RawResponse;
}

/**
 * Whether the response cache applies to a call (the first step of `cacheCall`): a surface asks
 * before it parses a body only the cache's key would need.
 *
 * @example
 * if (cacheApplies(deps.cache, ctx, admitted)) question = JSON.parse(text);
 */
export function cacheApplies(
  cache: ResponseCache | undefined,
  ctx: ServerContext,
  admitted: CacheAdmission | undefined,
): cache is ResponseCache {
  return cache?.wanted(admitted?.cacheWanted) === true && ctx.header(CACHE_HEADER)?.trim().toLowerCase() !== "off";
}

/**
 * The response cache for one call of a surface, or undefined when it does not apply: neither
 * `proxy.cache` nor the key's or team's `cache: true` asks for it (or `cache: false` refuses it),
 * or the caller sent `x-conduit-cache: off`. A hit is settled here: no tokens, $0 against
 * budgets, `savedUsd` = what the stored answer cost upstream (`describe` reads it from the bytes).
 *
 * @example
 * const cached = await cacheCall(deps.cache, ctx, admitted, { surface: "anthropic-messages", model, body }, describeMessages);
 * if (cached?.hit) return cached.hit;
 */
export async function cacheCall(
  cache: ResponseCache | undefined,
  ctx: ServerContext,
  admitted: CacheAdmission | undefined,
  call: { surface: string; model: string; body: Record<string, unknown> },
  describe: (bytes: Buffer, contentType: string) => { model: string; savedUsd: number },
): Promise<CacheCall | undefined> {
  if (!cacheApplies(cache, ctx, admitted)) return undefined;
  const key = cache.keyOf({ ...call, scope: admitted?.cacheScope ?? "clients" });
  const stored = await cache.lookup(key);
  if (stored) {
    admitted?.settle({
      model: stored.model,
      // Not the vendor's traffic: reconciliation leaves it out, the usage history shows what it saved.
      target: `cache/${stored.model}`,
      inputTokens: 0,
      outputTokens: 0,
      status: 200,
      latencyMs: 0,
      savedUsd: stored.savedUsd,
    });
    return { hit: cache.replay(stored), capture: (response) => response };
  }
  return { hit: undefined, capture: (response) => cache.capture(key, response, describe) };
}
