import { defineRoute, type RouteGroup } from "../contracts/route.js";
import type { McpServerInfo, Runtime } from "../contracts/runtime.js";
import { ErrorCategory, ErrorSeverity } from "../errors/codes.js";
import { ServerAdapterError } from "../errors/server-adapter-error.js";
import {
  mcpServerDetailResponseSchema,
  mcpServerListResponseSchema,
  mcpServerToolsResponseSchema,
  toolExecutionResponseSchema,
} from "./response-schemas.js";
import { callContextOf, requireRuntime, resourceNotFound } from "./route-support.js";
import { mcpServerParamsSchema, mcpToolParamsSchema, toolExecuteRequestSchema } from "./schemas.js";

/** Known but not connected: the client may retry once the runtime reconnects. */
function serverUnavailable(server: McpServerInfo): ServerAdapterError {
  return new ServerAdapterError(`MCP server "${server.name}" is ${server.status}`, {
    code: "MCP_SERVER_UNAVAILABLE",
    statusCode: 503,
    category: ErrorCategory.EXTERNAL,
    severity: ErrorSeverity.MEDIUM,
    retryable: true,
    details: { name: server.name, status: server.status, lastError: server.lastError },
  });
}

/**
 * The MCP group: external tool servers, their status and tools. Unknown server → 404
 * `MCP_SERVER_NOT_FOUND`; a known server that is not connected → 503 `MCP_SERVER_UNAVAILABLE`.
 *
 * @example
 * adapter.registerRouteGroup(createMcpRoutes(runtime));
 * // GET /api/mcp/servers → {data:{servers:[{name, status, transport, toolCount, lastError}], total}}
 */
export function createMcpRoutes(runtime: Runtime | undefined): RouteGroup {
  const findServer = async (name: string): Promise<McpServerInfo> => {
    const server = await requireRuntime(runtime).mcp.get(name);
    if (server === undefined) throw resourceNotFound("MCP_SERVER_NOT_FOUND", `MCP server "${name}" not found`, { name });
    return server;
  };
  const connectedServer = async (name: string): Promise<McpServerInfo> => {
    const server = await findServer(name);
    if (server.status !== "connected") throw serverUnavailable(server);
    return server;
  };
  return {
    prefix: "/mcp",
    tags: ["mcp"],
    routes: [
      defineRoute({
        method: "GET",
        path: "/servers",
        summary: "List MCP servers",
        schema: { response: mcpServerListResponseSchema() },
        handler: async () => {
          const servers = await requireRuntime(runtime).mcp.list();
          return { servers, total: servers.length };
        },
      }),
      defineRoute({
        method: "GET",
        path: "/servers/:name",
        summary: "Status of one MCP server, with its tools when connected",
        schema: { params: mcpServerParamsSchema(), response: mcpServerDetailResponseSchema() },
        handler: async (ctx) => {
          const server = await findServer(ctx.params.name);
          // A disconnected server still has a status worth reporting; only its tools are unknown.
          const tools = server.status === "connected" ? await requireRuntime(runtime).mcp.listTools(server.name) : [];
          return { ...server, tools };
        },
      }),
      defineRoute({
        method: "GET",
        path: "/servers/:name/tools",
        summary: "Tools of one MCP server",
        schema: { params: mcpServerParamsSchema(), response: mcpServerToolsResponseSchema() },
        handler: async (ctx) => {
          const server = await connectedServer(ctx.params.name);
          const tools = await requireRuntime(runtime).mcp.listTools(server.name);
          return { server: server.name, tools, total: tools.length };
        },
      }),
      defineRoute({
        method: "POST",
        path: "/servers/:name/tools/:toolName/execute",
        summary: "Execute a tool of one MCP server",
        schema: { params: mcpToolParamsSchema(), body: toolExecuteRequestSchema(), response: toolExecutionResponseSchema() },
        handler: async (ctx) => {
          const server = await connectedServer(ctx.params.name);
          return requireRuntime(runtime).mcp.executeTool(server.name, ctx.params.toolName, ctx.body.arguments ?? {}, callContextOf(ctx));
        },
      }),
    ],
  };
}
