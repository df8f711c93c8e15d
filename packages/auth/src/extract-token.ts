import type { ServerContext } from "@conduit-ai/server-core";
import type { AuthMiddlewareOptions, AuthType } from "./auth-types.js";
import { type Extraction, MALFORMED, NONE, decodeBasicCredential, parseAuthorization, readCookie } from "./credentials.js";

/** The header each scheme reads by default. */
export function defaultHeaderName(type: AuthType): string {
  return type === "api-key" ? "x-api-key" : "authorization";
}

/**
 * The credential in one header's value, by the scheme's rule (Basic decoded to
 * `username:password`; Bearer on `Authorization` needs its scheme, a bare token is fine on a
 * dedicated header). The one rule for HTTP requests and WebSocket upgrades alike.
 *
 * @example
 * credentialFromHeader("api-key", "x-custom-key", "k-1"); // { kind: "token", token: "k-1" }
 */
export function credentialFromHeader(type: AuthType, headerName: string, value: string): Extraction {
  if (type === "basic") {
    const parsed = parseAuthorization(value, "Basic");
    if (parsed.kind !== "token") return parsed;
    const credential = decodeBasicCredential(parsed.token);
    // The validator receives `username:password`, already decoded and checked.
    return credential ? { kind: "token", token: `${credential.username}:${credential.password}` } : MALFORMED;
  }
  if (type === "bearer" || (type === "custom" && headerName === "authorization")) {
    // On a dedicated header (x-access-token) a bare token is fine; `Authorization` needs its scheme.
    if (headerName !== "authorization" && !/^bearer[ \t]/i.test(value)) return token(value);
    return parseAuthorization(value, "Bearer");
  }
  return token(value);
}

function token(value: string | undefined): Extraction {
  const trimmed = value?.trim();
  return trimmed ? { kind: "token", token: trimmed } : NONE;
}

/**
 * The header, cookie and query steps of `extractCredential`, synchronously: the whole
 * search when no custom extractor is configured, so most requests need no promise here.
 */
export function extractFromRequest(
  ctx: ServerContext,
  options: Pick<AuthMiddlewareOptions, "type" | "headerName" | "cookieName" | "queryParam">,
): Extraction {
  const headerName = (options.headerName ?? defaultHeaderName(options.type)).toLowerCase();
  const headerValue = ctx.header(headerName);
  if (headerValue !== undefined && headerValue.trim() !== "") return credentialFromHeader(options.type, headerName, headerValue);
  if (options.cookieName) {
    const found = token(readCookie(ctx.header("cookie"), options.cookieName));
    if (found.kind === "token") return found;
  }
  if (options.queryParam) {
    const value = ctx.query[options.queryParam];
    const found = token(Array.isArray(value) ? value[0] : value);
    if (found.kind === "token") return found;
  }
  return NONE;
}

/**
 * Finds the credential in the spec's order: header, cookie, query, custom extractor.
 * A header that is present but unusable (`Authorization: Bearer`, bad base64) is
 * `malformed` and is not silently replaced by a later source.
 *
 * @example
 * await extractCredential(ctx, { type: "bearer", validate }); // { kind: "token", token: "..." }
 */
export async function extractCredential(
  ctx: ServerContext,
  options: Pick<AuthMiddlewareOptions, "type" | "headerName" | "cookieName" | "queryParam" | "extractToken">,
): Promise<Extraction> {
  const found = extractFromRequest(ctx, options);
  if (found.kind !== "none" || !options.extractToken) return found;
  const extracted = await options.extractToken(ctx);
  return typeof extracted === "string" ? token(extracted) : NONE;
}
