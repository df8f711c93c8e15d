import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AuthenticatedUser, ServerContext } from "../contracts/context.js";
import type { TrustProxyConfig } from "../contracts/config.js";
import { compileTrustProxy } from "../core/credentials/client-address.js";
import { RequestContext } from "../core/pipeline/request-context.js";

/**
 * A `ServerContext` for a request that never enters the HTTP pipeline (a WebSocket upgrade,
 * or a message on the socket it became), so surfaces outside it can call what takes a
 * context — the rate limiter's key function first of all — and get the same answer as HTTP:
 * same client address (pass the server's `trustProxy`), same headers, same user.
 *
 * @example
 * const outcome = await limiter.consume(upgradeContext(request));
 */
export function upgradeContext(request: IncomingMessage, user?: AuthenticatedUser, trustProxy?: TrustProxyConfig): ServerContext {
  const url = request.url ?? "/";
  const queryIndex = url.indexOf("?");
  const context = new RequestContext({
    requestId: `ws-${randomUUID()}`,
    method: "GET",
    path: queryIndex === -1 ? url : url.slice(0, queryIndex),
    query: {},
    headers: request.headers,
    peerAddress: request.socket?.remoteAddress ?? "",
    // The server's `trustProxy`: the upgrade's client address is the one HTTP would see.
    trustProxy: compileTrustProxy(trustProxy),
    route: undefined,
    params: {},
    readBody: () => Promise.resolve(undefined),
  });
  if (user) context.user = user;
  return context;
}
