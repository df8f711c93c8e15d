import type { ServerContext } from "@conduit-ai/server-core";
import { servedOverHttps } from "@conduit-ai/server-core/internal";

/** The cookie holding the console session's random id (and nothing else). */
export const CONSOLE_COOKIE = "conduit_console";

/** A cookie's value from the request's `Cookie` header, or undefined. */
export function readCookie(ctx: Pick<ServerContext, "header">, name = CONSOLE_COOKIE): string | undefined {
  const header = ctx.header("cookie");
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index !== -1 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
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
