import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { pathMatchesFilter } from "../core/pipeline/path-pattern.js";

export interface DeprecatedRoute {
  /** Exact path, or a prefix ending in `*` (as sent, e.g. `/api/v1/*`). */
  path: string;
  /** Only this method (default all). */
  method?: string;
  /** When it was deprecated (`Deprecation: @<seconds>`); default `Deprecation: true`. */
  deprecatedAt?: Date | string;
  /** When it stops working (`Sunset`, an HTTP date). */
  sunset?: Date | string;
  /** Where to read about the replacement (`Link: <url>; rel="deprecation"`). */
  link?: string;
  /** Text of the notice header. */
  message?: string;
}

export interface DeprecationOptions {
  /** Routes deprecated besides those whose definition says `deprecated: true`. */
  routes?: Array<string | DeprecatedRoute>;
  /** Name of the human-readable notice header (default `X-Deprecation-Notice`). */
  noticeHeader?: string;
  /** Adds `Link` (default true) when a link is known. */
  includeLink?: boolean;
  /** Defaults for routes without their own values (and for `deprecated: true` routes). */
  sunset?: Date | string;
  link?: string;
  message?: string;
}

const toDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

/**
 * Deprecation headers (RFC 8594 `Sunset`, `Deprecation`, `Link`) plus a notice header on
 * routes defined with `deprecated: true` or listed in `routes`.
 *
 * @example
 * adapter.registerMiddleware(createDeprecationMiddleware({
 *   routes: [{ path: "/api/v1/*", sunset: "2027-01-01", link: "https://docs.example/migrate" }],
 * }));
 */
export function createDeprecationMiddleware(options: DeprecationOptions = {}): MiddlewareDefinition {
  const noticeHeader = options.noticeHeader ?? "X-Deprecation-Notice";
  const includeLink = options.includeLink ?? true;
  const routes = (options.routes ?? []).map((route) => (typeof route === "string" ? { path: route } : route));
  const find = (ctx: ServerContext): DeprecatedRoute | undefined => {
    const listed = routes.find(
      (route) => pathMatchesFilter(ctx.path, route.path) && (route.method === undefined || route.method.toUpperCase() === ctx.method),
    );
    if (listed) return listed;
    return ctx.route?.deprecated ? { path: ctx.route.fullPath } : undefined;
  };
  return {
    name: "deprecation",
    order: 6,
    handler: async (ctx, next) => {
      const route = find(ctx);
      if (route) {
        const deprecatedAt = route.deprecatedAt;
        ctx.setHeader("deprecation", deprecatedAt === undefined ? "true" : `@${Math.floor(toDate(deprecatedAt).getTime() / 1000)}`);
        const sunset = route.sunset ?? options.sunset;
        if (sunset !== undefined) ctx.setHeader("sunset", toDate(sunset).toUTCString());
        const link = route.link ?? options.link;
        if (includeLink && link !== undefined) ctx.appendHeader("link", `<${link}>; rel="deprecation"`);
        const sunsetText = sunset === undefined ? "" : ` and will be removed after ${toDate(sunset).toUTCString()}`;
        ctx.setHeader(noticeHeader, route.message ?? options.message ?? `${ctx.method} ${ctx.path} is deprecated${sunsetText}`);
      }
      await next();
    },
  };
}
