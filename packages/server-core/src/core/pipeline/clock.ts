/**
 * The global `performance`, read once: in Node the global is a lazy getter (hot paths skip it by
 * importing this), and `node:perf_hooks` is missing on Cloudflare Workers before late-2026
 * compatibility dates, so the fetch entry must not import it.
 */
export const performance: Performance = globalThis.performance;

let cachedMs = -1;
let cachedIso = "";

/**
 * `new Date().toISOString()`, formatted at most once per millisecond: formatting costs
 * about as much as the rest of a small response, and under load many responses share
 * the same millisecond.
 */
export function isoTimestamp(): string {
  const now = Date.now();
  if (now !== cachedMs) {
    cachedMs = now;
    cachedIso = new Date(now).toISOString();
  }
  return cachedIso;
}

/**
 * Milliseconds since the call, for uptimes. Cloudflare Workers read the clock as 0 outside a
 * request (at module scope, where a fetch handler is created), so a start read there is taken
 * again at the first reading inside a request.
 */
export function uptimeClock(): () => number {
  let startedAt = Date.now();
  return () => {
    const now = Date.now();
    if (startedAt === 0) startedAt = now;
    return now - startedAt;
  };
}
