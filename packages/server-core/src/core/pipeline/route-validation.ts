import { HTTP_METHODS } from "../../contracts/http.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import type { RegisteredRoute } from "../../contracts/route.js";
import { invalidRoute, schemaError } from "../../errors/server-errors.js";

const METHODS = new Set<string>(HTTP_METHODS);
const SCHEMA_SLOTS = ["body", "query", "params", "response"] as const;
/** Characters a path segment may hold (RFC 3986 pchar, `%` escapes included); a `:name` parameter names an identifier-like key. */
const SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%]*$/;
const PARAMETER = /^:[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** True when `value` can validate (a zod schema, or anything speaking its `safeParse`). */
function isSchema(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { safeParse?: unknown }).safeParse === "function";
}

/** What is wrong with a middleware definition (of a route or global), or undefined. */
export function middlewareProblem(middleware: unknown): string | undefined {
  const definition = middleware as Partial<MiddlewareDefinition> | null;
  if (typeof definition !== "object" || definition === null || typeof definition.handler !== "function")
    return "middleware needs a handler function";
  if (definition.order !== undefined && !Number.isFinite(definition.order)) return "middleware order must be a finite number";
  for (const key of ["paths", "excludePaths"] as const) {
    const filters = definition[key];
    if (filters !== undefined && (!Array.isArray(filters) || filters.some((filter) => typeof filter !== "string")))
      return `middleware ${key} must be a list of paths`;
  }
  return undefined;
}

/**
 * Refuses a route at registration instead of accepting it silently: an unknown method, a
 * path that no request could reach (`?`, `#`, spaces, an empty or repeated `:parameter`), a
 * handler that is not a function, bad route middleware → `INVALID_ROUTE`; a schema slot that
 * is not a zod schema → `SCHEMA_ERROR`.
 *
 * @example
 * validateRoute({ method: "FETCH", path: "/x", fullPath: "/api/x", handler }); // throws INVALID_ROUTE
 */
export function validateRoute(route: RegisteredRoute): void {
  const where = { method: route.method, path: route.fullPath };
  if (typeof route.method !== "string" || !METHODS.has(route.method)) {
    throw invalidRoute(`method ${JSON.stringify(route.method)} is not one of ${HTTP_METHODS.join(", ")}`, where);
  }
  if (typeof route.path !== "string" || typeof route.fullPath !== "string" || !route.fullPath.startsWith("/")) {
    throw invalidRoute("path must be a string", where);
  }
  const names = new Set<string>();
  const segments = route.fullPath.split("/").slice(1);
  for (const segment of segments) {
    if (segment === "*") continue;
    if (segment.startsWith(":")) {
      if (!PARAMETER.test(segment))
        throw invalidRoute(`parameter ${JSON.stringify(segment)} needs a name of letters, digits, _ or -`, where);
      if (names.has(segment)) throw invalidRoute(`parameter ${segment} appears twice`, where);
      names.add(segment);
      continue;
    }
    if (!SEGMENT.test(segment) || segment === "." || segment === "..")
      throw invalidRoute(`path segment ${JSON.stringify(segment)} cannot be requested`, where);
  }
  if (typeof route.handler !== "function") throw invalidRoute("handler must be a function", where);
  if (route.timeoutMs !== undefined && !(Number.isInteger(route.timeoutMs) && route.timeoutMs > 0))
    throw invalidRoute("timeoutMs must be a positive integer", where);
  if (route.middleware !== undefined) {
    if (!Array.isArray(route.middleware)) throw invalidRoute("middleware must be a list", where);
    for (const middleware of route.middleware) {
      const problem = middlewareProblem(middleware);
      if (problem) throw invalidRoute(problem, where);
    }
  }
  if (route.schema !== undefined) {
    if (typeof route.schema !== "object" || route.schema === null)
      throw schemaError("Route schema must be an object of zod schemas", where);
    for (const slot of SCHEMA_SLOTS) {
      const schema = route.schema[slot];
      if (schema !== undefined && !isSchema(schema)) throw schemaError(`Route schema.${slot} is not a zod schema`, { ...where, slot });
    }
  }
}
