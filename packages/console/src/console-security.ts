import { type MiddlewareDefinition, ServerAdapterError, type ServerContext } from "@conduit-ai/server-core";
import { servedOverHttps } from "@conduit-ai/server-core/internal";

/**
 * The console's Content-Security-Policy: only its own files, no inline script or style
 * attribute, no framing, no plugins, and fetches to its own origin only.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers on every console answer (pages, assets and API). */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CONTENT_SECURITY_POLICY,
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The request's own origin (`http(s)://host`), as the browser would write it in `Origin`.
 * `X-Forwarded-Host` counts only from a proxy `trustProxy` believes: otherwise a client could
 * name any host and make a cross-site `Origin` look like our own.
 */
export function ownOrigin(ctx: ServerContext): string | undefined {
  const forwardedHost = ctx.fromTrustedProxy === true ? ctx.header("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  const host = forwardedHost || ctx.header("host");
  return host ? `${servedOverHttps(ctx) ? "https" : "http"}://${host}`.toLowerCase() : undefined;
}

/**
 * Why a write is refused as cross-site, or undefined when it comes from the console itself.
 * `Sec-Fetch-Site` (sent by every current browser) must be `same-origin`; else `Origin` must be
 * this server's own; a write with neither is refused too (fail closed: a browser always sends one).
 */
export function crossSiteReason(ctx: ServerContext): string | undefined {
  if (SAFE_METHODS.has(ctx.method)) return undefined;
  const site = ctx.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin" ? undefined : `Sec-Fetch-Site is ${site}`;
  const origin = ctx.header("origin");
  if (origin === undefined) return "neither Sec-Fetch-Site nor Origin was sent";
  return origin.toLowerCase() === ownOrigin(ctx) ? undefined : "Origin is another site";
}

/**
 * Console headers on every answer, and writes refused with 403 `CROSS_SITE_REQUEST` when they
 * come from another site (CSRF defence beside the `SameSite=Strict` cookie).
 *
 * @example
 * server.registerRouteGroup({ prefix: "/console", middleware: [consoleGuard()], routes });
 */
export function consoleGuard(): MiddlewareDefinition {
  return {
    name: "console-guard",
    order: 0,
    handler: async (ctx, next) => {
      for (const [name, value] of Object.entries(CONSOLE_HEADERS)) ctx.response.headers[name] = value;
      const reason = crossSiteReason(ctx);
      if (reason !== undefined) {
        throw new ServerAdapterError("Cross-site writes to the console are refused", {
          code: "CROSS_SITE_REQUEST",
          statusCode: 403,
          details: { reason },
        });
      }
      await next();
    },
  };
}
