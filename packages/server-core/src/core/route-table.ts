import type { HttpMethod } from "../contracts/http.js";
import type { RegisteredRoute } from "../contracts/route.js";
import { RouteConflictError } from "../errors/server-errors.js";
import { type PathPattern, compilePathPattern } from "./path-pattern.js";

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

  add(route: RegisteredRoute): TableEntry {
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
