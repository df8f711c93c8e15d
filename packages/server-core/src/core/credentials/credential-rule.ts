import type { IncomingHttpHeaders } from "node:http";
import { type Extraction, MALFORMED, NONE, decodeBasicCredential, parseAuthorization, readCookie } from "./credentials.js";

/** How a credential is presented: the scheme decides the default header and how its value is parsed. */
export type CredentialScheme = "bearer" | "basic" | "api-key" | "custom";

/**
 * Where a credential may be, in docs/spec.md's order: a header (`headerName`, else the scheme's
 * default), then a cookie (`cookieName`), then a query parameter (`queryParam`). The same rule
 * serves HTTP requests and WebSocket upgrades, so a browser page (which cannot set headers on a
 * WebSocket) reaches `/ws` exactly as it reaches `/api`.
 */
export interface CredentialRule {
  scheme: CredentialScheme;
  headerName?: string | undefined;
  cookieName?: string | undefined;
  queryParam?: string | undefined;
}

/** What a credential is read from: one header by (lower-case) name, one query parameter by name. */
export interface CredentialSource {
  header(name: string): string | undefined;
  query(name: string): string | undefined;
}

/** The header each scheme reads by default. */
export function defaultCredentialHeader(scheme: CredentialScheme): string {
  return scheme === "api-key" ? "x-api-key" : "authorization";
}

function token(value: string | undefined): Extraction {
  const trimmed = value?.trim();
  return trimmed ? { kind: "token", token: trimmed } : NONE;
}

/**
 * The credential in one header's value, by the scheme's rule (Basic decoded to
 * `username:password`; Bearer on `Authorization` needs its scheme, a bare token is fine on a
 * dedicated header).
 *
 * @example
 * credentialFromHeader("api-key", "x-custom-key", "k-1"); // { kind: "token", token: "k-1" }
 */
export function credentialFromHeader(scheme: CredentialScheme, headerName: string, value: string): Extraction {
  if (scheme === "basic") {
    const parsed = parseAuthorization(value, "Basic");
    if (parsed.kind !== "token") return parsed;
    const credential = decodeBasicCredential(parsed.token);
    // The validator receives `username:password`, already decoded and checked.
    return credential ? { kind: "token", token: `${credential.username}:${credential.password}` } : MALFORMED;
  }
  if (scheme === "bearer" || (scheme === "custom" && headerName === "authorization")) {
    // On a dedicated header (x-access-token) a bare token is fine; `Authorization` needs its scheme.
    if (headerName !== "authorization" && !/^bearer[ \t]/i.test(value)) return token(value);
    return parseAuthorization(value, "Bearer");
  }
  return token(value);
}

/**
 * The one credential rule of Conduit: header, then cookie, then query parameter. A header that
 * is present but unusable (`Authorization: Bearer`, bad base64) is `malformed` and is not
 * silently replaced by a later source. The HTTP auth middleware and the WebSocket upgrade both
 * call it, so what `/api` accepts `/ws` accepts.
 *
 * @example
 * readCredential(credentialSourceOf(request), { scheme: "bearer", queryParam: "access_token" });
 * // { kind: "token", token: "eyJ…" } for /ws?access_token=eyJ…
 */
export function readCredential(source: CredentialSource, rule: CredentialRule): Extraction {
  const headerName = (rule.headerName ?? defaultCredentialHeader(rule.scheme)).toLowerCase();
  const headerValue = source.header(headerName);
  if (headerValue !== undefined && headerValue.trim() !== "") return credentialFromHeader(rule.scheme, headerName, headerValue);
  if (rule.cookieName) {
    const found = token(readCookie(source.header("cookie"), rule.cookieName));
    if (found.kind === "token") return found;
  }
  if (rule.queryParam) {
    const found = token(source.query(rule.queryParam));
    if (found.kind === "token") return found;
  }
  return NONE;
}

/**
 * A Node request (a WebSocket upgrade, before any context exists) as a credential source.
 *
 * @example
 * server.on("upgrade", (request) => readCredential(credentialSourceOf(request), rule));
 */
export function credentialSourceOf(request: { headers: IncomingHttpHeaders; url?: string | undefined }): CredentialSource {
  let params: URLSearchParams | undefined;
  return {
    header: (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    },
    query: (name) => {
      params ??= new URL(request.url ?? "/", "http://localhost").searchParams;
      return params.get(name) ?? undefined;
    },
  };
}
