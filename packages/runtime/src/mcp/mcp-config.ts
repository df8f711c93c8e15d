/** An MCP server launched as a child process speaking stdio. */
export interface McpStdioServerConfig {
  command: string;
  args?: string[];
  /** Added to the SDK's safe default environment (PATH, HOME, …). */
  env?: Record<string, string>;
  cwd?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServerConfig {
  url: string;
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export interface McpConnectionOptions {
  /** First reconnect delay; doubles per failed attempt up to `maxDelayMs`. Default 500. */
  initialDelayMs?: number;
  /** Default 30 000. */
  maxDelayMs?: number;
  /** Timeout of one tool call or ping. Default 30 000. */
  requestTimeoutMs?: number;
}

export function isHttpConfig(config: McpServerConfig): config is McpHttpServerConfig {
  return "url" in config && typeof config.url === "string";
}

/** A tool as an MCP server described it. */
export interface McpToolDescriptor {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}
