/** Dot segments, plain or percent-encoded, that URL parsers (and so some routers) resolve. */
const DOT_SEGMENT = /\/(\.|%2e)/i;

/** The path and query of a request target; `path` is `*` for `OPTIONS *`. */
export interface RequestTarget {
  path: string;
  /** Without the `?`; empty when there is none. */
  search: string;
}

/**
 * Resolves `.`/`..` segments the way WHATWG URL parsing does, so routing, middleware path
 * filters and auth `skipPaths` all judge the same path on every adapter: `/api/public/../private`
 * is `/api/private`, never a borrowed public prefix.
 */
function canonicalPath(path: string): string {
  if (!DOT_SEGMENT.test(path)) return path;
  // Appended to an origin, never resolved against one: `//host/..` must stay a path, not become a host.
  return new URL(`http://localhost${path}`).pathname;
}

function split(target: string): RequestTarget {
  const queryIndex = target.indexOf("?");
  return queryIndex === -1
    ? { path: canonicalPath(target), search: "" }
    : { path: canonicalPath(target.slice(0, queryIndex)), search: target.slice(queryIndex + 1) };
}

/**
 * The request target of RFC 9112 §3.2 in the forms a server must accept: origin-form
 * (`/a?b`), absolute-form (`http://host/a?b`, sent to proxies) and asterisk-form (`*`, for
 * `OPTIONS *`). Anything else (authority-form, garbage) is undefined: a 400.
 *
 * @example
 * parseRequestTarget("http://example.com/api/x?y=1"); // { path: "/api/x", search: "y=1" }
 */
export function parseRequestTarget(target: string): RequestTarget | undefined {
  try {
    return parseTarget(target);
  } catch {
    return undefined;
  }
}

function parseTarget(target: string): RequestTarget | undefined {
  if (target.startsWith("/")) return split(target);
  if (target === "*") return { path: "*", search: "" };
  if (/^https?:\/\//i.test(target)) {
    const url = new URL(target);
    return split(`${url.pathname}${url.search}`);
  }
  return undefined;
}
