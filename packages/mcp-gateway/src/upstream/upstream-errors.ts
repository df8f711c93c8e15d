import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";

const SDK_REQUEST_TIMEOUT = -32001;
const SDK_CONNECTION_CLOSED = -32000;

/** What the client is told about an upstream failure: always the server's name, never a secret. */
export function upstreamError(server: string, method: string, error: unknown, timeoutMs: number): RpcError {
  if (RpcError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === SDK_REQUEST_TIMEOUT || (error as { name?: unknown } | null)?.name === "TimeoutError")
    return new RpcError(RpcErrorCode.UPSTREAM_TIMEOUT, `MCP server "${server}" did not answer ${method} within ${timeoutMs} ms`, {
      server,
    });
  if (code === SDK_CONNECTION_CLOSED)
    return new RpcError(RpcErrorCode.UPSTREAM_UNAVAILABLE, `MCP server "${server}" closed the connection during ${method}`, { server });
  // The SDK's HTTP transports put the HTTP status in `code` (StreamableHTTPError, SseError).
  if (code === 401 || code === 403)
    return new RpcError(
      RpcErrorCode.UPSTREAM_UNAVAILABLE,
      `MCP server "${server}" refused the gateway's credentials for ${method} (HTTP ${code})`,
      { server, status: code },
    );
  if (typeof code === "number" && code >= 100 && code < 600)
    return new RpcError(RpcErrorCode.UPSTREAM_UNAVAILABLE, `MCP server "${server}" answered ${method} with HTTP ${code}`, {
      server,
      status: code,
    });
  // The upstream's own JSON-RPC error (McpError): its code and message, with the server named.
  if (typeof code === "number" && code < 0) {
    const own = message.replace(/^MCP error -?\d+: /, "");
    const data = (error as { data?: unknown }).data;
    return new RpcError(code, `MCP server "${server}": ${own}`, {
      server,
      ...(data !== undefined ? { upstream: data as unknown } : {}),
    });
  }
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return new RpcError(
    RpcErrorCode.UPSTREAM_UNAVAILABLE,
    `MCP server "${server}" is unavailable: ${typeof cause === "string" ? cause : message}`,
    { server },
  );
}

/** True when the upstream no longer knows the session id the gateway resumed with (HTTP 404). */
export function isSessionGone(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 404;
}
