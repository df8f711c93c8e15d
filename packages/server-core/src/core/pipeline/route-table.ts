import type { HttpMethod } from "../../contracts/http.js";
import type { RegisteredRoute } from "../../contracts/route.js";
import { RouteConflictError, ServerValidationError } from "../../errors/server-errors.js";
import { type PathPattern, compilePathPattern } from "./path-pattern.js";
import { validateRoute } from "./route-validation.js";

export interface TableEntry {
  route: RegisteredRoute;
  pattern: PathPattern;
}

/** Normalizes `/a/:id` and `/a/:name` to the same shape, so they conflict. */
const shapeOf = (path: string) => path.replace(/:[^/]+/g, ":").replace(/\/+$/, "") || "/";

/**
 * Every registered route. Adapters mount these on their native routers; the table also
 * matches requests itself for routes added after the app was built, and answers which
 * methods a path allows.
 */
export class RouteTable {
  private readonly entries: TableEntry[] = [];
  private readonly byKey = new Map<string, TableEntry>();
  /** Adapters hand back the very route object they mounted: found by identity on the hot path. */
  private readonly byRoute = new Map<RegisteredRoute, TableEntry>();

  /** Adds a route; a malformed one is refused (`INVALID_ROUTE`, `SCHEMA_ERROR`), a duplicate conflicts. */
  add(route: RegisteredRoute): TableEntry {
    validateRoute(route);
    const key = `${route.method} ${shapeOf(route.fullPath)}`;
    if (this.byKey.has(key)) throw new RouteConflictError(route.method, route.fullPath);
    const entry = { route, pattern: compilePathPattern(route.fullPath) };
    this.byKey.set(key, entry);
    this.byRoute.set(route, entry);
    this.entries.push(entry);
    return entry;
  }

  get size(): number {
    return this.entries.length;
  }

  routes(): RegisteredRoute[] {
    return this.entries.map((entry) => entry.route);
  }

  all(): readonly TableEntry[] {
    return this.entries;
  }

  entryFor(route: RegisteredRoute): TableEntry | undefined {
    return this.byRoute.get(route) ?? this.byKey.get(`${route.method} ${shapeOf(route.fullPath)}`);
  }

  /** The entry for method + path (HEAD falls back to GET); `allowed` lists the methods the path has. */
  /** Every route whose pattern matches `path`, whatever its method (a preflight asks about them). */
  routesAt(path: string): RegisteredRoute[] {
    const found: RegisteredRoute[] = [];
    for (const entry of this.entries) {
      try {
        if (entry.pattern.match(path)) found.push(entry.route);
      } catch {
        // A malformed escape matches nothing here; the request itself answers 400.
      }
    }
    return found;
  }

  find(method: string, path: string): { entry?: TableEntry; allowed: HttpMethod[] } {
    const allowed: HttpMethod[] = [];
    let found: TableEntry | undefined;
    const wanted = method === "HEAD" ? "GET" : method;
    for (const entry of this.entries) {
      if (!entry.pattern.match(path)) continue;
      allowed.push(entry.route.method);
      if (!found && entry.route.method === wanted) found = entry;
    }
    return found ? { entry: found, allowed } : { allowed };
  }
}

/** Route matching decodes `%` escapes: a malformed one is the client's 400, not a server error. */
export function malformedEscapeAsRequestError(error: unknown): unknown {
  return error instanceof URIError
    ? new ServerValidationError("Malformed percent-encoding in path", [{ field: "path", message: error.message }])
    : error;
}

/** The decoded parameters of `path` under `entry`'s pattern. */
export function paramsOf(entry: TableEntry, path: string): Record<string, string> {
  try {
    return entry.pattern.match(path) ?? {};
  } catch (error) {
    throw malformedEscapeAsRequestError(error);
  }
}
