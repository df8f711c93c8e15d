import { createHash, timingSafeEqual } from "node:crypto";
import type { ServerContext } from "@conduit-ai/server-core";

/**
 * Whether a request may use the proxy: the server's own auth already admitted it (`ctx.user`),
 * or it carries one of `clientKeys` as `x-api-key` or `Authorization: Bearer` (the SDKs'
 * two ways). Keys are compared as SHA-256 digests with `timingSafeEqual`: constant time, and
 * no length leak. No keys and no user → refused (fail closed).
 */
export function createClientCheck(clientKeys: readonly string[]): (ctx: ServerContext) => boolean {
  const digests = clientKeys.map(digest);
  return (ctx) => {
    if (ctx.user) return true;
    const presented = presentedCredential(ctx);
    if (!presented) return false;
    const candidate = digest(presented);
    let matched = false;
    // Every key compared, whichever matches: time does not tell which.
    for (const key of digests) matched = timingSafeEqual(key, candidate) || matched;
    return matched;
  };
}

/**
 * Why a client was refused, the same words on every proxy surface: no key at all, or a key that
 * is not one of the proxy's (never echoing it).
 *
 * @example
 * throw new AuthenticationError(clientKeyRefusal(ctx));
 */
export function clientKeyRefusal(ctx: Pick<ServerContext, "header">): string {
  return presentedCredential(ctx) === undefined
    ? "A proxy client key is required (x-api-key or Authorization: Bearer)"
    : "The proxy client key is not valid (x-api-key or Authorization: Bearer)";
}

/** The credential a client presents the SDKs' two ways: `x-api-key`, or `Authorization: Bearer`. */
export function presentedCredential(ctx: Pick<ServerContext, "header">): string | undefined {
  return ctx.header("x-api-key") ?? bearerOf(ctx.header("authorization"));
}

function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match?.[1]?.trim();
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
