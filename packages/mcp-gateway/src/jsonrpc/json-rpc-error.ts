/** JSON-RPC 2.0 error codes the gateway answers with (the -32000 range is the server's own). */
export const RpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  /** An unknown method — and a tool, prompt, resource or server the caller may not use. */
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** An upstream MCP server is unreachable, refused the gateway, or failed (`data.server`). */
  UPSTREAM_UNAVAILABLE: -32000,
  /** An upstream MCP server did not answer within `mcp.requestTimeoutMs` (`data.server`). */
  UPSTREAM_TIMEOUT: -32001,
  /** Refused by the key's limits: rpm, concurrency, budget (`data.reason`, `data.retryAfterSeconds`). */
  LIMITED: -32003,
  /** A tool's result a guardrail blocked (`data.reason` `guardrail_violation`, `data.guardrail`, `data.entity`). */
  GUARDRAIL_VIOLATION: -32004,
} as const;

const MARKER = Symbol.for("@conduit-ai/mcp-gateway/RpcError");

/**
 * A JSON-RPC error the gateway answers with: thrown anywhere below a request, written once by
 * the dispatcher as the request's error response. `data` never carries a secret.
 *
 * @example
 * throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, 'Tool "github__delete_repo" is not allowed for this key', { reason: "not_allowed" });
 */
export class RpcError extends Error {
  readonly [MARKER] = true;
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "RpcError";
  }

  /** True for an `RpcError` of any copy of this package. */
  static isInstance(value: unknown): value is RpcError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  toJSON(): { code: number; message: string; data?: Record<string, unknown> } {
    return { code: this.code, message: this.message, ...(this.data ? { data: this.data } : {}) };
  }
}
