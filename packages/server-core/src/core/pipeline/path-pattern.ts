/** A compiled `/users/:id` pattern: matches a request path and extracts decoded parameters. */
export interface PathPattern {
  readonly path: string;
  readonly paramNames: string[];
  /** Undefined when the path does not match; throws `URIError` on malformed percent-encoding. */
  match(path: string): Record<string, string> | undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function compilePathPattern(path: string): PathPattern {
  const paramNames: string[] = [];
  const source = path
    .split("/")
    .map((segment) => {
      if (segment.startsWith(":")) {
        paramNames.push(segment.slice(1));
        return "([^/]+)";
      }
      if (segment === "*") return "(.*)";
      return escapeRegExp(segment);
    })
    .join("/");
  const regexp = new RegExp(`^${source}/?$`);
  return {
    path,
    paramNames,
    match(requestPath) {
      const found = regexp.exec(requestPath);
      if (!found) return undefined;
      const params = Object.create(null) as Record<string, string>;
      paramNames.forEach((name, index) => {
        params[name] = decodeURIComponent(found[index + 1] ?? "");
      });
      return params;
    },
  };
}

/** Joins path pieces into `/a/b`, without doubled or trailing slashes. */
export function joinPaths(...parts: string[]): string {
  const joined = parts
    .filter((part) => part !== "" && part !== "/")
    .map((part) => part.replace(/^\/+|\/+$/g, ""))
    .filter(Boolean)
    .join("/");
  return `/${joined}`;
}

/** Middleware path filters: exact path, or a prefix ending in `*`. */
export function pathMatchesFilter(path: string, filter: string): boolean {
  if (filter.endsWith("*")) return path.startsWith(filter.slice(0, -1));
  return path === filter || path === `${filter}/`;
}
