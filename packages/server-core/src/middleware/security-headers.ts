import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { PASSED_ON, middlewareFromHooks } from "../core/pipeline/middleware-hooks.js";

/** Each header's value, or `false` to leave it out. */
export interface SecurityHeadersOptions {
  frameOptions?: string | false;
  contentTypeOptions?: string | false;
  referrerPolicy?: string | false;
  strictTransportSecurity?: string | false;
  /** Further headers, e.g. `{ "Content-Security-Policy": "default-src 'none'" }`. */
  additional?: Record<string, string>;
}

const DEFAULTS = {
  frameOptions: "DENY",
  contentTypeOptions: "nosniff",
  referrerPolicy: "strict-origin-when-cross-origin",
  strictTransportSecurity: "max-age=31536000",
} as const;

/**
 * True when the client reached us over HTTPS. Conduit listens on plain HTTP, so that is a
 * TLS-terminating proxy saying so: `X-Forwarded-Proto: https` or `Forwarded: proto=https`
 * (first hop) — believed only from a peer `config.trustProxy` trusts (`ctx.fromTrustedProxy`);
 * with `trustProxy` off these headers are whatever the client wrote, and are ignored.
 */
export function servedOverHttps(ctx: Pick<ServerContext, "header" | "fromTrustedProxy">): boolean {
  if (ctx.fromTrustedProxy !== true) return false;
  const forwardedProto = ctx.header("x-forwarded-proto");
  if (forwardedProto !== undefined) return forwardedProto.split(",")[0]?.trim().toLowerCase() === "https";
  const forwarded = ctx.header("forwarded");
  return forwarded !== undefined && /(?:^|;)\s*proto="?https"?\s*(?:;|,|$)/i.test(forwarded.split(",")[0] ?? "");
}

/**
 * Security headers (order 2), set before the handler runs so error responses carry them too.
 * `Strict-Transport-Security` goes only on answers that reached the client over HTTPS
 * (`servedOverHttps`): RFC 6797 §7.2 forbids it over plain HTTP.
 *
 * @example
 * adapter.registerMiddleware(createSecurityHeadersMiddleware({ frameOptions: "SAMEORIGIN", strictTransportSecurity: false }));
 */
export function createSecurityHeadersMiddleware(options: SecurityHeadersOptions = {}): MiddlewareDefinition {
  const pick = (key: keyof typeof DEFAULTS) => (options[key] === undefined ? DEFAULTS[key] : options[key]);
  const headers: Array<[string, string]> = [];
  const add = (name: string, value: string | false) => {
    if (value !== false) headers.push([name.toLowerCase(), value]);
  };
  add("x-frame-options", pick("frameOptions"));
  add("x-content-type-options", pick("contentTypeOptions"));
  add("referrer-policy", pick("referrerPolicy"));
  for (const [name, value] of Object.entries(options.additional ?? {})) add(name, value);
  const strictTransportSecurity = pick("strictTransportSecurity");
  return middlewareFromHooks(
    { name: "security-headers", order: 2 },
    {
      before: (ctx) => {
        const target = ctx.response.headers;
        for (const [name, value] of headers) target[name] = value;
        if (strictTransportSecurity !== false && servedOverHttps(ctx)) target["strict-transport-security"] = strictTransportSecurity;
        return PASSED_ON;
      },
    },
  );
}
