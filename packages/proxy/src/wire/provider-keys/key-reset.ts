import { MAX_COOLDOWN_MS } from "../../pool/cooldown-cap.js";
import { rateLimitResetAt } from "../anthropic-messages/rate-limit-headers.js";

/** How long a key that answered 429 without naming its reset cools. */
export const DEFAULT_KEY_COOLDOWN_MS = 60_000;

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** OpenAI's and Groq's reset durations (`1s`, `6m0s`, `2m59.56s`, `20ms`) in ms; undefined when not one. */
function durationMs(value: string | null): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  let total = 0;
  let matched = "";
  for (const [part, amount, unit] of text.matchAll(DURATION_PART)) {
    total += Number(amount) * (UNIT_MS[unit as string] as number);
    matched += part;
  }
  return matched === text && matched !== "" ? total : undefined;
}

/**
 * When a provider key that answered 429 may be used again (epoch ms), from the headers vendors
 * send: `retry-after-ms`, `retry-after`, OpenAI's and Groq's `x-ratelimit-reset-requests` /
 * `-tokens` (the later of them), Anthropic's `anthropic-ratelimit-*-reset`; a minute when none
 * is given; never beyond the longest quota window.
 *
 * @example
 * keyResetAt(new Headers({ "x-ratelimit-reset-requests": "6m0s" }), now); // now + 360_000
 */
export function keyResetAt(headers: Headers | undefined, now: number): number {
  const cap = (at: number) => Math.min(Math.max(at, now), now + MAX_COOLDOWN_MS);
  if (!headers) return now + DEFAULT_KEY_COOLDOWN_MS;
  const retryAfterMs = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(retryAfterMs)) return cap(now + retryAfterMs);
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  const anthropic = rateLimitResetAt(record, now);
  if (anthropic !== undefined) return anthropic;
  const resets = [headers.get("x-ratelimit-reset-requests"), headers.get("x-ratelimit-reset-tokens")]
    .map(durationMs)
    .filter((ms): ms is number => ms !== undefined);
  if (resets.length > 0) return cap(now + Math.max(...resets));
  return now + DEFAULT_KEY_COOLDOWN_MS;
}
