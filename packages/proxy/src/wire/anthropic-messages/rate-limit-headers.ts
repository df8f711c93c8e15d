import { MAX_COOLDOWN_MS } from "../../pool/cooldown-cap.js";
import type { Quota, QuotaLimits } from "../../pool/store/pool-store.js";

/** Response headers as Node gives them (lower-case names). */
export type HeaderRecord = Readonly<Record<string, string | string[] | undefined>>;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const PREFIX = "anthropic-ratelimit-";
const FIELDS = new Set(["limit", "remaining", "reset", "status", "utilization"]);

export { MAX_COOLDOWN_MS } from "../../pool/cooldown-cap.js";

/**
 * `anthropic-ratelimit-*` and `anthropic-ratelimit-unified-*` headers by limit name:
 * `anthropic-ratelimit-unified-5h-utilization: 0.4` → `{"unified-5h": {utilization: "0.4"}}`.
 * Undefined when the response carries none.
 */
export function parseRateLimitHeaders(headers: HeaderRecord, now: number): Quota | undefined {
  let limits: QuotaLimits | undefined;
  for (const name in headers) {
    if (!name.startsWith(PREFIX)) continue;
    const value = single(headers[name]);
    if (value === undefined) continue;
    const rest = name.slice(PREFIX.length);
    const dash = rest.lastIndexOf("-");
    const field = dash > 0 ? rest.slice(dash + 1) : "";
    // Read on every answer: no pair array per header.
    const known = FIELDS.has(field);
    const limit = known ? rest.slice(0, dash) : rest;
    limits ??= {};
    limits[limit] ??= {};
    (limits[limit] as Record<string, string>)[known ? field : "value"] = value;
  }
  return limits ? { updatedAt: now, limits } : undefined;
}

/** A reset header as epoch ms: RFC 3339 (`requests-reset`) or epoch seconds (`unified-reset`). */
function resetTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** `retry-after` as epoch ms: delay seconds or an HTTP date. */
function retryAfterTime(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return now + Number(value) * 1000;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/**
 * When a 429's limit resets (epoch ms), capped at the longest window; undefined when the
 * response names no reset. `retry-after` first, then the exhausted limits' resets (the
 * latest of them), then any reset.
 */
export function rateLimitResetAt(headers: HeaderRecord, now: number): number | undefined {
  const fromRetryAfter = retryAfterTime(single(headers["retry-after"]), now);
  let reset = fromRetryAfter;
  if (reset === undefined) {
    const quota = parseRateLimitHeaders(headers, now);
    const entries = Object.values(quota?.limits ?? {});
    const exhausted = entries.filter((limit) => limit.remaining === "0" || limit.status === "rejected");
    const resets = (exhausted.length > 0 ? exhausted : entries)
      .map((limit) => resetTime(limit.reset))
      .filter((time): time is number => time !== undefined);
    if (resets.length > 0) reset = Math.max(...resets);
  }
  if (reset === undefined) return undefined;
  return Math.min(Math.max(reset, now), now + MAX_COOLDOWN_MS);
}
