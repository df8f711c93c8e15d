import type { TrustProxyConfig } from "../../contracts/config.js";
import type { ServerContext } from "../../contracts/context.js";
import { compileTrustProxy, resolveClientAddress } from "../../core/credentials/client-address.js";

/**
 * The client's address as a rate-limit key: `ctx.clientAddress` (the server's
 * `config.trustProxy` rule), or — when a middleware brings its own `trustProxy` — that rule
 * applied to the socket peer and `X-Forwarded-For` (proxy-addr semantics: the rightmost
 * address that is not a trusted proxy; never the leftmost, which the client writes).
 *
 * @example
 * keyGenerator: (ctx) => `tenant:${ctx.header("x-tenant")}:${clientKey(ctx)}`
 */
export function clientKey(ctx: ServerContext, trustProxy?: TrustProxyConfig): string {
  if (trustProxy === undefined) return ctx.clientAddress || "unknown";
  // A function (already compiled, or the user's own) passes through compileTrustProxy unchanged.
  return resolveClientAddress(ctx.peerAddress, ctx.headers, compileTrustProxy(trustProxy)) || "unknown";
}
