import type { ServerContext } from "../../contracts/context.js";

/**
 * The client's address: the socket peer, or — only when `trustProxy` says a proxy you
 * control sets it — the first `X-Forwarded-For` entry (clients can forge that header).
 *
 * @example
 * keyGenerator: (ctx) => clientKey(ctx, true)
 */
export function clientKey(ctx: ServerContext, trustProxy = false): string {
  if (trustProxy) {
    const forwarded = ctx.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return ctx.clientAddress || "unknown";
}
