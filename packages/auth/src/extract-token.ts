import type { ServerContext } from "@conduit-ai/server-core";
import {
  type CredentialSource,
  type Extraction,
  credentialFromHeader,
  defaultCredentialHeader,
  readCredential,
} from "@conduit-ai/server-core/internal";
import type { AuthMiddlewareOptions, AuthType } from "./auth-types.js";

/** The header each scheme reads by default. */
export function defaultHeaderName(type: AuthType): string {
  return defaultCredentialHeader(type);
}

export { credentialFromHeader };

/** A request context as a credential source (the first value of a repeated query parameter). */
export function contextCredentialSource(ctx: ServerContext): CredentialSource {
  return {
    header: (name) => ctx.header(name),
    query: (name) => {
      const value = ctx.query[name];
      return Array.isArray(value) ? value[0] : value;
    },
  };
}

/**
 * The header, cookie and query steps of `extractCredential`, synchronously: server-core's
 * `readCredential`, the one rule the WebSocket upgrade follows too.
 */
export function extractFromRequest(
  ctx: ServerContext,
  options: Pick<AuthMiddlewareOptions, "type" | "headerName" | "cookieName" | "queryParam">,
): Extraction {
  return readCredential(contextCredentialSource(ctx), {
    scheme: options.type,
    headerName: options.headerName,
    cookieName: options.cookieName,
    queryParam: options.queryParam,
  });
}

/**
 * Finds the credential in docs/spec.md's order: header, cookie, query, custom extractor.
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
  const trimmed = typeof extracted === "string" ? extracted.trim() : "";
  return trimmed ? { kind: "token", token: trimmed } : { kind: "none" };
}
