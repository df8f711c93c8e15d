import { type PriceTable, type ServerContext, costOf } from "@conduit-ai/server-core";
import type { Admitted } from "../../admission/client-admission.js";
import { type CacheCall, cacheApplies, cacheCall } from "../../cache/cache-call.js";
import type { ResponseCache } from "../../cache/response-cache.js";
import { messagesUsageScanner } from "../../wire/anthropic-messages/usage-tap.js";

function parsedObject(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A `/v1/messages` call's place in the response cache (see `cacheCall`); undefined as well for a
 * body that is not a JSON object. What a stored answer saves is read from its own usage.
 *
 * @example
 * const cached = await messagesCacheCall(deps.cache, ctx, admitted, model, body, prices);
 * if (cached?.hit) return cached.hit;
 */
export async function messagesCacheCall(
  cache: ResponseCache | undefined,
  ctx: ServerContext,
  admitted: Admitted,
  model: string,
  body: Uint8Array,
  prices: PriceTable,
): Promise<CacheCall | undefined> {
  // The body is parsed for the cache's key only: not at all when the cache does not apply.
  if (!cacheApplies(cache, ctx, admitted)) return undefined;
  const question = parsedObject(body);
  if (!question) return undefined;
  return cacheCall(cache, ctx, admitted, { surface: "anthropic-messages", model, body: question }, (bytes, contentType) => {
    const scanner = messagesUsageScanner(contentType);
    scanner.push(bytes);
    const scanned = scanner.finish();
    const served = scanned && scanned.model !== "unknown" ? scanned.model : model;
    return { model: served, savedUsd: scanned ? costOf(prices, served, scanned.usage) : 0 };
  });
}
