import { type McpServerStatus, type RuntimeCallContext, withSpan } from "@conduit-ai/server-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mcpTraceFetch } from "./mcp-trace-fetch.js";
import { VERSION } from "../version.js";
import { isHttpConfig, type McpConnectionOptions, type McpServerConfig, type McpToolDescriptor } from "./mcp-config.js";

/**
 * One MCP server: connects, caches its tools, and when the server dies (process exit,
 * closed HTTP server) reconnects with exponential backoff until closed.
 */
export class McpConnection {
  status: McpServerStatus = "connecting";
  lastError: string | null = null;
  tools: McpToolDescriptor[] = [];
  readonly #options: Required<McpConnectionOptions>;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #connecting: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    options: McpConnectionOptions = {},
  ) {
    this.#options = { initialDelayMs: 500, maxDelayMs: 30_000, requestTimeoutMs: 30_000, ...options };
  }

  get transport(): "stdio" | "http" {
    return isHttpConfig(this.config) ? "http" : "stdio";
  }

  /** The child process id of a stdio server while connected (for diagnostics and tests). */
  get processId(): number | null {
    return this.#transport instanceof StdioClientTransport ? this.#transport.pid : null;
  }

  /** One connection attempt; on failure a reconnect is scheduled. Resolves either way. */
  connect(): Promise<void> {
    this.#connecting ??= this.#attemptConnection().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #attemptConnection(): Promise<void> {
    if (this.#closed) return;
    this.status = "connecting";
    const client = new Client({ name: "conduit-runtime", version: VERSION });
    const transport = this.#createTransport();
    try {
      await client.connect(transport, { timeout: this.#options.requestTimeoutMs });
      const listed = await client.listTools(undefined, { timeout: this.#options.requestTimeoutMs });
      if (this.#closed) {
        await client.close();
        return;
      }
      this.tools = listed.tools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? "",
        inputSchema: tool.inputSchema as Record<string, unknown>,
      }));
      this.#client = client;
      this.#transport = transport;
      this.status = "connected";
      this.lastError = null;
      this.#attempt = 0;
      client.onclose = () => this.#lost(client, "connection closed");
    } catch (error) {
      await client.close().catch(() => {});
      this.status = "error";
      this.lastError = error instanceof Error ? error.message : String(error);
      this.#scheduleReconnect();
    }
  }

  #createTransport(): Transport {
    if (isHttpConfig(this.config)) {
      const headers = this.config.headers;
      return new StreamableHTTPClientTransport(new URL(this.config.url), {
        ...(headers ? { requestInit: { headers } } : {}),
        fetch: mcpTraceFetch,
      });
    }
    return new StdioClientTransport({
      command: this.config.command,
      ...(this.config.args ? { args: this.config.args } : {}),
      ...(this.config.env ? { env: this.config.env } : {}),
      ...(this.config.cwd ? { cwd: this.config.cwd } : {}),
    });
  }

  /** Marks the current client dead (once) and starts reconnecting. */
  #lost(client: Client, reason: string): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = undefined;
    this.#transport = undefined;
    this.status = "disconnected";
    this.lastError = reason;
    void client.close().catch(() => {});
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#timer !== undefined) return;
    const delay = Math.min(this.#options.initialDelayMs * 2 ** this.#attempt, this.#options.maxDelayMs);
    this.#attempt++;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.connect();
    }, delay);
    this.#timer.unref();
  }

  /**
   * Calls a tool. Throws `{ kind: "unavailable" }` when not connected or the transport fails
   * (and starts reconnecting); protocol errors (McpError) propagate unchanged.
   */
  async callTool(tool: string, args: Record<string, unknown>, { signal, traceSpan }: RuntimeCallContext = {}): Promise<CallToolResult> {
    const client = this.#client;
    if (client === undefined || this.status !== "connected") throw new McpUnavailable(this.lastError);
    try {
      const options = { kind: "client" as const, attributes: this.#spanAttributes(tool), parent: traceSpan };
      const result = await withSpan(`tools/call ${tool}`, options, (span) => {
        // W3C trace context in the request's `_meta` (any transport) and, over HTTP, in its headers too (mcpTraceFetch).
        const _meta = span?.traceHeaders();
        return client.callTool({ name: tool, arguments: args, ...(_meta ? { _meta } : {}) }, undefined, {
          timeout: this.#options.requestTimeoutMs,
          ...(signal ? { signal } : {}),
        });
      });
      return result as CallToolResult;
    } catch (error) {
      if (isTransportFailure(error)) {
        this.#lost(client, error instanceof Error ? error.message : String(error));
        throw new McpUnavailable(this.lastError);
      }
      throw error;
    }
  }

  /** The MCP semantic conventions of a `tools/call` client span; never the server's headers or arguments. */
  #spanAttributes(tool: string): Record<string, string | number | undefined> {
    const url = isHttpConfig(this.config) ? new URL(this.config.url) : undefined;
    return {
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool,
      "conduit.mcp.server": this.name,
      "network.transport": url ? "tcp" : "pipe",
      "server.address": url?.hostname,
      "server.port": url ? Number(url.port || (url.protocol === "https:" ? 443 : 80)) : undefined,
    };
  }

  /** Round trip to the server; a failure marks it disconnected (how a dead HTTP server is noticed). */
  async ping(): Promise<number> {
    const client = this.#client;
    if (client === undefined) throw new McpUnavailable(this.lastError);
    const started = performance.now();
    try {
      await client.ping({ timeout: Math.min(this.#options.requestTimeoutMs, 2_000) });
    } catch (error) {
      this.#lost(client, error instanceof Error ? error.message : String(error));
      throw new McpUnavailable(this.lastError);
    }
    return performance.now() - started;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.status = "disconnected";
    await client?.close().catch(() => {});
  }
}

/** The server cannot be reached now; maps to 503. */
export class McpUnavailable extends Error {
  constructor(readonly reason: string | null) {
    super(reason ?? "not connected");
    this.name = "McpUnavailable";
  }
}

/**
 * JSON-RPC errors (McpError) carry a negative code and mean the server answered; of those only
 * "connection closed" (-32000) is a dead link. Anything else (fetch failures, HTTP statuses) is the transport.
 */
function isTransportFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "number" && code < 0) return code === -32000;
  return true;
}
