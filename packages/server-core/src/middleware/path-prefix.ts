/**
 * True when `path` is one of `prefixes` or below it (`/health` covers `/health/live`),
 * compared both as sent and without `basePath` (`/api/metrics` matches `/metrics`).
 */
export function matchesPathPrefix(path: string, prefixes: readonly string[], basePath = ""): boolean {
  if (prefixes.length === 0) return false;
  const relative = basePath !== "" && basePath !== "/" && path.startsWith(basePath) ? path.slice(basePath.length) || "/" : undefined;
  const under = (candidate: string, prefix: string) => {
    if (prefix.endsWith("*")) return candidate.startsWith(prefix.slice(0, -1));
    return candidate === prefix || candidate.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
  };
  return prefixes.some((prefix) => under(path, prefix) || (relative !== undefined && under(relative, prefix)));
}

/**
 * The same prefixes as middleware `excludePaths` filters (`/health` → `/health`, `/health/*`),
 * so the core leaves the middleware out of those paths' chains altogether.
 *
 * @example
 * prefixFilters(["/health", "/docs*"]); // ["/health", "/health/*", "/docs*"]
 */
export function prefixFilters(prefixes: readonly string[]): string[] {
  return prefixes.flatMap((prefix) => (prefix.endsWith("*") ? [prefix] : [prefix, `${prefix.endsWith("/") ? prefix : `${prefix}/`}*`]));
}
