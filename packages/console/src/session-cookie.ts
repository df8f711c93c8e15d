import type { ServerContext } from "@conduit-ai/server-core";
import { readCookie as readCookieHeader, servedOverHttps } from "@conduit-ai/server-core/internal";

/** The cookie holding the console session's random id (and nothing else). */
export const CONSOLE_COOKIE = "conduit_console";

/** A cookie's value from the request's `Cookie` header, or undefined. */
export function readCookie(ctx: Pick<ServerContext, "header">, name = CONSOLE_COOKIE): string | undefined {
  return readCookieHeader(ctx.header("cookie"), name);
}

/**
 * The `Set-Cookie` value of a session: `HttpOnly` (no script reads it), `SameSite=Strict` (never
 * sent on a request another site starts), `Secure` when the client reached us over HTTPS, scoped
 * to the console's path. `maxAgeSeconds` 0 deletes it.
 */
export function sessionCookie(
  ctx: Pick<ServerContext, "header" | "fromTrustedProxy">,
  options: { id: string; path: string; maxAgeSeconds: number },
): string {
  const parts = [
    `${CONSOLE_COOKIE}=${options.id}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (servedOverHttps(ctx)) parts.push("Secure");
  return parts.join("; ");
}
