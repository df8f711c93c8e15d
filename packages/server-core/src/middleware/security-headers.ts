import type { MiddlewareDefinition } from "../contracts/middleware.js";

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
 * Security headers (order 2), set before the handler runs so error responses carry them too.
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
  add("strict-transport-security", pick("strictTransportSecurity"));
  for (const [name, value] of Object.entries(options.additional ?? {})) add(name, value);
  return {
    name: "security-headers",
    order: 2,
    handler: (ctx, next) => {
      const target = ctx.response.headers;
      for (const [name, value] of headers) target[name] = value;
      return next();
    },
  };
}
