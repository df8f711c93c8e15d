import {
  type DependencyHealth,
  type McpServerInfo,
  type McpServers,
  type RuntimeCallContext,
  ServerAdapterError,
  ServerValidationError,
  type ToolExecutionResult,
  type ToolInfo,
} from "@conduit-ai/server-core";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { mcpServerNotFound, mcpServerUnavailable, toolExecutionFailed, toolNotFound } from "../runtime-errors.js";
import type { RuntimeTool } from "../tools/runtime-tool.js";
import type { McpConnectionOptions, McpServerConfig } from "./mcp-config.js";
import { McpConnection, McpUnavailable } from "./mcp-connection.js";

/** Registry name of an MCP tool: `mcp__<server>__<tool>` (the convention MCP hosts use; valid for every provider API). */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

const INVALID_PARAMS = -32602;

function resultText(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .map((item: { type?: string; text?: string }) => (item.type === "text" ? item.text : ""))
    .join("\n")
    .trim();
}

/**
 * The runtime's MCP servers (`McpServers` contract): one reconnecting client per configured
 * server; their tools also feed the tool registry with source `mcp:<server>`.
 *
 * @example
 * const mcp = new McpManager({ files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] } });
 * await mcp.ready();
 */
export class McpManager implements McpServers {
  readonly #connections = new Map<string, McpConnection>();
  readonly #initial: Promise<void>;

  constructor(servers: Record<string, McpServerConfig> = {}, options: McpConnectionOptions = {}) {
    for (const [name, config] of Object.entries(servers)) this.#connections.set(name, new McpConnection(name, config, options));
    this.#initial = Promise.all([...this.#connections.values()].map((connection) => connection.connect())).then(() => {});
  }

  /** Resolves when every server's first connection attempt has settled (connected or failed). */
  ready(): Promise<void> {
    return this.#initial;
  }

  connection(name: string): McpConnection {
    const connection = this.#connections.get(name);
    if (connection === undefined) throw mcpServerNotFound(name, [...this.#connections.keys()]);
    return connection;
  }

  #info(connection: McpConnection): McpServerInfo {
    const connected = connection.status === "connected";
    return {
      name: connection.name,
      status: connection.status,
      transport: connection.transport,
      toolCount: connected ? connection.tools.length : 0,
      lastError: connection.lastError,
    };
  }

  async list(): Promise<McpServerInfo[]> {
    return [...this.#connections.values()].map((connection) => this.#info(connection));
  }

  async get(name: string): Promise<McpServerInfo | undefined> {
    const connection = this.#connections.get(name);
    return connection === undefined ? undefined : this.#info(connection);
  }

  async listTools(name: string): Promise<ToolInfo[]> {
    const connection = this.connection(name);
    if (connection.status !== "connected") throw mcpServerUnavailable(name, connection.lastError);
    return connection.tools.map((tool) => ({ ...tool, source: `mcp:${name}`, requiresConfirmation: false }));
  }

  async executeTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: RuntimeCallContext = {},
  ): Promise<ToolExecutionResult> {
    const connection = this.connection(server);
    if (connection.status !== "connected") throw mcpServerUnavailable(server, connection.lastError);
    if (!connection.tools.some((candidate) => candidate.name === tool)) throw toolNotFound(tool);
    const started = performance.now();
    try {
      const result = await connection.callTool(tool, args ?? {}, options);
      if (result.isError === true) {
        const message = resultText(result) || "the tool reported an error";
        // The SDK's McpServer reports schema failures as an error result, not a JSON-RPC error.
        if (/input validation error|invalid arguments/i.test(message)) {
          throw new ServerValidationError(`Invalid arguments for MCP tool "${tool}"`, [{ field: "arguments", message }]);
        }
        throw toolExecutionFailed(tool, message, true);
      }
      const value = result.structuredContent ?? result.content;
      return { name: tool, result: value, duration: Math.round(performance.now() - started) };
    } catch (error) {
      if (ServerAdapterError.isInstance(error)) throw error;
      if (error instanceof McpUnavailable) throw mcpServerUnavailable(server, error.reason);
      if (error instanceof McpError && error.code === INVALID_PARAMS) {
        throw new ServerValidationError(`Invalid arguments for MCP tool "${tool}"`, [{ field: "arguments", message: error.message }]);
      }
      throw toolExecutionFailed(tool, error instanceof Error ? error.message : String(error), true);
    }
  }

  /** Tools of the connected servers, for the registry. */
  registryTools(): RuntimeTool[] {
    const tools: RuntimeTool[] = [];
    for (const connection of this.#connections.values()) {
      if (connection.status !== "connected") continue;
      for (const tool of connection.tools) {
        tools.push({
          info: {
            name: mcpToolName(connection.name, tool.name),
            description: tool.description,
            inputSchema: tool.inputSchema,
            source: `mcp:${connection.name}`,
            requiresConfirmation: false,
          },
          // The server validates against its own schema; its answer is mapped to a 400 above.
          validate: (args) => args,
          run: async (args, context) =>
            (await this.executeTool(connection.name, tool.name, args as Record<string, unknown>, context)).result,
        });
      }
    }
    return tools;
  }

  /** Per-server health (`mcp:<name>`); MCP servers are optional, so never required for readiness. */
  async health(): Promise<Record<string, DependencyHealth>> {
    const entries = await Promise.all(
      [...this.#connections.values()].map(async (connection): Promise<[string, DependencyHealth]> => {
        const key = `mcp:${connection.name}`;
        if (connection.status !== "connected") {
          const status = connection.status === "connecting" ? "degraded" : "down";
          return [key, { status, required: false, message: connection.lastError ?? connection.status }];
        }
        try {
          const latencyMs = Math.round(await connection.ping());
          return [key, { status: "ok", required: false, latencyMs }];
        } catch {
          return [key, { status: "down", required: false, message: connection.lastError ?? "ping failed" }];
        }
      }),
    );
    return Object.fromEntries(entries);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
  }
}
