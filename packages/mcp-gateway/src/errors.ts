import { ConfigurationError } from "@conduit-ai/server-core";
const MARKER = Symbol.for("@conduit-ai/mcp-gateway/McpGatewayConfigError");

/**
 * A gateway that cannot be built as configured (no client credential, an unknown server, a
 * missing OAuth provider): a `ConfigurationError` whose message and `issues` name the key.
 * `conduit serve` exits 2 with it.
 *
 * @example
 * if (McpGatewayConfigError.isInstance(error)) console.error(error.message);
 */
export class McpGatewayConfigError extends ConfigurationError {
  readonly [MARKER] = true;
  /** `path`: the key at fault (default `mcpGateway`), for `issues`. */
  constructor(message: string, path = "mcpGateway") {
    super(message, { code: "MCP_GATEWAY_CONFIG", details: { issues: [{ path, message }] } });
    this.name = "McpGatewayConfigError";
  }

  static override isInstance(value: unknown): value is McpGatewayConfigError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
