import { type RawResponse, type ServerContext, costOf, mergePrices } from "@conduit-ai/server-core";
import type { Admitted } from "../../admission/client-admission.js";
import { CACHE_HEADER, type ResponseCache } from "../../cache/response-cache.js";
import type { ProxyConfig } from "../../config.js";
import { messagesUsageScanner } from "../../wire/anthropic-messages/usage-tap.js";

/** One `/v1/messages` call's place in the response cache: its key, and how a miss is stored. */
export interface MessagesCacheCall {
  /** The stored answer, settled at $0 with what it saved; undefined on a miss. */
  hit: RawResponse | undefined;
  /** Marks a miss and stores its answer once it has gone out whole. */
  capture(response: RawResponse): RawResponse;
}

function parsedObject(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The response cache for a `/v1/messages` call, or undefined when it does not apply: neither
 * `proxy.cache` nor the key's or team's `cache: true` asks for it (or `cache: false` refuses it),
 * the caller sent `x-conduit-cache: off`, or the body is not a JSON object. A hit is
 * settled here: no tokens, $0 against budgets, `savedUsd` = what the stored answer cost upstream.
 *
 * @example
 * const cached = await messagesCacheCall(deps.cache, ctx, admitted, model, body, deps.config);
 * if (cached?.hit) return cached.hit;
 */
export async function messagesCacheCall(
  cache: ResponseCache | undefined,
  ctx: ServerContext,
  admitted: Admitted,
  model: string,
  body: Uint8Array,
  config: ProxyConfig,
): Promise<MessagesCacheCall | undefined> {
  if (!cache || !cache.wanted(admitted.cacheWanted) || ctx.header(CACHE_HEADER)?.trim().toLowerCase() === "off") return undefined;
  const question = parsedObject(body);
  if (!question) return undefined;
  const key = cache.keyOf({ surface: "anthropic-messages", scope: admitted.cacheScope, model, body: question });
  const stored = await cache.lookup(key);
  if (stored) {
    admitted.settle({
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
  const prices = mergePrices(config.prices);
  return {
    hit: undefined,
    capture: (response) =>
      cache.capture(key, response, (bytes, contentType) => {
        const scanner = messagesUsageScanner(contentType);
        scanner.push(bytes);
        const scanned = scanner.finish();
        const served = scanned && scanned.model !== "unknown" ? scanned.model : model;
        return { model: served, savedUsd: scanned ? costOf(prices, served, scanned.usage) : 0 };
      }),
  };
}
