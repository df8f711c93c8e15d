import { parseBearer } from "../core/credentials/credentials.js";
import { constantTimeEquals } from "../core/credentials/secret-digest.js";
import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { AuthenticationError, AuthorizationError } from "../errors/server-errors.js";
import type { MetricJson } from "./metric-types.js";

/** Series that describe tenants (per-team spend, tokens, request counts): only ever for an admin or the metrics token. */
export const GOVERNANCE_SERIES_PREFIX = "conduit_governance_";

/**
 * What a scrape may read: `all` (an admin credential or the metrics token), `process` (anyone,
 * with `metrics.public: true`: everything but the governance series).
 */
export type MetricsScope = "all" | "process";

/** `ctx.state` key where the metrics guard leaves the request's scope for whatever answers the scrape. */
export const METRICS_SCOPE_STATE = "conduit.metrics.scope";

/** Who may read `/metrics` besides the token: true for an admin (governance registers its admin check). */
export type MetricsReaderCheck = (ctx: ServerContext) => boolean;

export interface MetricsAccessOptions {
  /** Anyone may read the process metrics (never the governance series). Default false. */
  public?: boolean;
  /** A bearer token for scrapers: `Authorization: Bearer <token>` reads everything. */
  token?: string;
  /** Admin checks; read at request time (a package may register one after the server was built). */
  readers: () => readonly MetricsReaderCheck[];
  /** The metrics route's full path (`/api/metrics`): nothing else is guarded. */
  routePath: string;
}

/**
 * The one rule for reading `/metrics`:
 * - `Authorization: Bearer <metrics.token>` (compared as SHA-256 digests in constant time), an
 *   admin by a registered check (governance's admin keys), or — when nothing registered a check —
 *   a user of the server's own auth with role `admin`: everything.
 * - Anyone else, only with `metrics.public: true`: the process and HTTP figures, never the
 *   `conduit_governance_*` series.
 * - Otherwise 401 (nothing presented) or 403 (a credential or user that is not an admin's).
 *
 * @example
 * metricsScope(ctx, { public: false, token: process.env.CONDUIT_METRICS_TOKEN, readers: () => [], routePath: "/api/metrics" }); // "all" | "process" | undefined
 */
export function metricsScope(ctx: ServerContext, options: MetricsAccessOptions): MetricsScope | undefined {
  const presented = parseBearer(ctx.header("authorization"));
  if (presented !== undefined && options.token !== undefined && constantTimeEquals(presented, options.token)) return "all";
  const readers = options.readers();
  if (readers.some((isAdmin) => isAdmin(ctx))) return "all";
  if (readers.length === 0 && ctx.user?.roles.includes("admin")) return "all";
  return options.public === true ? "process" : undefined;
}

/** The metrics a scope may see: `process` drops the governance series. */
export function metricsForScope(metrics: MetricJson[], scope: MetricsScope | undefined): MetricJson[] {
  if (scope === "all") return metrics;
  return metrics.filter((metric) => !metric.name.startsWith(GOVERNANCE_SERIES_PREFIX));
}

/** The scope the guard gave this request (`process` when it ran nowhere: the narrower answer). */
export function metricsScopeOf(ctx: Pick<ServerContext, "state">): MetricsScope {
  return ctx.state[METRICS_SCOPE_STATE] === "all" ? "all" : "process";
}

/**
 * Guards `GET /metrics` (order 20: after auth, so `ctx.user` is known; before anything that
 * answers a scrape itself, such as a cluster's aggregate at 90) and records the scope.
 */
export function createMetricsAccessMiddleware(options: MetricsAccessOptions): MiddlewareDefinition {
  return {
    name: "metrics-access",
    order: 20,
    paths: ["/metrics"],
    handler: async (ctx, next) => {
      if (ctx.route?.fullPath !== options.routePath) return next();
      const scope = metricsScope(ctx, options);
      if (scope === undefined) {
        if (ctx.header("authorization") !== undefined || ctx.user !== undefined)
          throw new AuthorizationError("Reading metrics needs an admin credential or the metrics token");
        ctx.setHeader("www-authenticate", 'Bearer realm="conduit-metrics"');
        throw new AuthenticationError("Reading metrics needs an admin credential or the metrics token (Authorization: Bearer)");
      }
      ctx.state[METRICS_SCOPE_STATE] = scope;
      await next();
    },
  };
}
