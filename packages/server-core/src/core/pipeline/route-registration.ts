import type { RegisteredRoute, RouteDefinition, RouteGroup } from "../../contracts/route.js";
import { invalidRoute } from "../../errors/server-errors.js";
import { joinPaths } from "./path-pattern.js";

/** The route as the table holds it: its full path under `basePath` (or as given, when `absolute`). */
export function toRegisteredRoute(basePath: string, route: RouteDefinition): RegisteredRoute {
  if (typeof route !== "object" || route === null || typeof route.path !== "string")
    throw invalidRoute("a route needs a method, a path and a handler", { route: String(route) });
  const fullPath = route.absolute ? joinPaths(route.path) : joinPaths(basePath, route.path);
  return { ...route, fullPath } as unknown as RegisteredRoute;
}

/** A group's routes with the group's prefix, tags and middleware applied (the group's middleware first). */
export function expandRouteGroup(group: RouteGroup): RouteDefinition[] {
  if (typeof group !== "object" || group === null || typeof group.prefix !== "string" || !Array.isArray(group.routes)) {
    throw invalidRoute("a route group needs a prefix and a list of routes", { prefix: String((group as RouteGroup | null)?.prefix) });
  }
  return group.routes.map((route) => {
    const middleware = [...(group.middleware ?? []), ...(route.middleware ?? [])];
    return {
      ...route,
      path: route.absolute ? route.path : joinPaths(group.prefix, route.path),
      tags: route.tags ?? group.tags,
      ...(middleware.length > 0 ? { middleware } : {}),
    };
  });
}
