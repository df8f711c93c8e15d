// Hot paths import `performance` from node:perf_hooks: the global one is a lazy getter in Node.
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
