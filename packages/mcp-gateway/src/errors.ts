const MARKER = Symbol.for("@conduit-ai/mcp-gateway/McpGatewayConfigError");

/**
 * A gateway that cannot be built as configured (no client credential, an unknown server, a
 * missing OAuth provider): the message names the key. `conduit serve` exits 2 with it.
 *
 * @example
 * if (McpGatewayConfigError.isInstance(error)) console.error(error.message);
 */
export class McpGatewayConfigError extends Error {
  readonly [MARKER] = true;
  readonly code = "MCP_GATEWAY_CONFIG";
  constructor(message: string) {
    super(message);
    this.name = "McpGatewayConfigError";
  }

  static isInstance(value: unknown): value is McpGatewayConfigError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
