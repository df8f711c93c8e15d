import { type UpstreamServerConfig, isHttpUpstream } from "../config/upstream-config.js";
import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import type { TokenExchanger } from "../auth/token-exchange.js";

/** What a caller brings that an upstream may be given: only an OAuth access token, never a Conduit credential. */
export interface CallerToken {
  /** The OAuth access token the caller presented (validated by the gateway's OAuth provider). */
  accessToken?: string | undefined;
}

/**
 * The headers one caller's connection to one server sends, by the server's `auth.mode`: `static`
 * its headers; `forward` the caller's own OAuth token; `exchange` a token exchanged for it (RFC
 * 8693, cached until it expires). A caller without an OAuth token (a virtual key, a client key) is
 * refused for `forward` and `exchange` servers with an error naming the server: the gateway's
 * client credential never reaches an upstream.
 *
 * @example
 * const headers = upstreamHeaders("github", config, () => session.callerToken, exchangers);
 * await headers(); // { authorization: "Bearer <exchanged>" }
 */
export function upstreamHeaders(
  server: string,
  config: UpstreamServerConfig,
  callerToken: () => CallerToken,
  exchangers: ReadonlyMap<string, TokenExchanger>,
): () => Promise<Record<string, string>> {
  const auth = isHttpUpstream(config) ? config.auth : undefined;
  if (!auth) return async () => ({});
  if (auth.mode === "static") {
    const headers = { ...auth.headers };
    return async () => headers;
  }
  const needToken = () => {
    const token = callerToken().accessToken;
    if (!token)
      throw new RpcError(
        RpcErrorCode.UPSTREAM_UNAVAILABLE,
        `MCP server "${server}" needs the caller's own OAuth token (auth mode ${auth.mode}); a Conduit key is never forwarded`,
        { server, reason: "oauth_token_required" },
      );
    return token;
  };
  if (auth.mode === "forward") return async () => ({ authorization: `Bearer ${needToken()}` });
  const exchanger = exchangers.get(auth.provider);
  return async () => {
    if (!exchanger)
      throw new RpcError(RpcErrorCode.UPSTREAM_UNAVAILABLE, `MCP server "${server}": no token exchange for provider "${auth.provider}"`, {
        server,
      });
    try {
      return { authorization: `Bearer ${await exchanger.exchange(needToken(), auth.audience, auth.scope)}` };
    } catch (error) {
      if (RpcError.isInstance(error)) throw error;
      throw new RpcError(
        RpcErrorCode.UPSTREAM_UNAVAILABLE,
        `MCP server "${server}": the token exchange at "${auth.provider}" failed (${(error as Error).message})`,
        { server, reason: "token_exchange_failed" },
      );
    }
  };
}
