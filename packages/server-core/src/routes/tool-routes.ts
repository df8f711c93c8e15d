import type { ServerContext } from "../contracts/context.js";
import { defineRoute, type RouteGroup } from "../contracts/route.js";
import type { Runtime, ToolExecutionResult } from "../contracts/runtime.js";
import { toolExecutionResponseSchema, toolListResponseSchema, toolSchema, toolSearchResponseSchema } from "./response-schemas.js";
import { callContextOf, requireRuntime, resourceNotFound } from "./route-support.js";
import { namedToolExecuteRequestSchema, toolExecuteRequestSchema, toolNameParamsSchema, toolSearchQuerySchema } from "./schemas.js";

const toolNotFound = (name: string) => resourceNotFound("TOOL_NOT_FOUND", `Tool "${name}" not found`, { name });

/**
 * The tools group: list, search, detail and execution of registered tools.
 * An unknown tool is a 404 `TOOL_NOT_FOUND` (never a 200 carrying a failure).
 *
 * @example
 * adapter.registerRouteGroup(createToolRoutes(runtime));
 * // POST /api/tools/calculator/execute {"arguments":{"expression":"2+2"}} → {data:{name, result, duration}}
 */
export function createToolRoutes(runtime: Runtime | undefined): RouteGroup {
  const execute = async (
    ctx: Pick<ServerContext, "requestId" | "user" | "abortSignal" | "header">,
    name: string,
    body: { arguments?: Record<string, unknown>; confirmed?: boolean },
  ): Promise<ToolExecutionResult> => {
    const tools = requireRuntime(runtime).tools;
    // Checked here so the 404 holds whatever the registry throws for unknown names.
    if ((await tools.get(name)) === undefined) throw toolNotFound(name);
    return tools.execute(name, body.arguments ?? {}, { ...callContextOf(ctx), confirmed: body.confirmed === true });
  };
  return {
    prefix: "/tools",
    tags: ["tools"],
    routes: [
      defineRoute({
        method: "GET",
        path: "/",
        summary: "List tools",
        schema: { response: toolListResponseSchema() },
        handler: async () => {
          const tools = await requireRuntime(runtime).tools.list();
          return { tools, total: tools.length };
        },
      }),
      // Registered before `/:name` so "search" is never taken for a tool name.
      defineRoute({
        method: "GET",
        path: "/search",
        summary: "Search tools by name, description or source",
        schema: { query: toolSearchQuerySchema(), response: toolSearchResponseSchema() },
        handler: async (ctx) => {
          const tools = await requireRuntime(runtime).tools.search(ctx.query);
          return { tools, total: tools.length, query: ctx.query };
        },
      }),
      defineRoute({
        method: "POST",
        path: "/execute",
        summary: "Execute a tool named in the body",
        schema: { body: namedToolExecuteRequestSchema(), response: toolExecutionResponseSchema() },
        handler: (ctx) => execute(ctx, ctx.body.name, ctx.body),
      }),
      defineRoute({
        method: "GET",
        path: "/:name",
        summary: "Describe one tool",
        schema: { params: toolNameParamsSchema(), response: toolSchema() },
        handler: async (ctx) => {
          const tool = await requireRuntime(runtime).tools.get(ctx.params.name);
          if (tool === undefined) throw toolNotFound(ctx.params.name);
          return tool;
        },
      }),
      defineRoute({
        method: "POST",
        path: "/:name/execute",
        summary: "Execute one tool",
        description: "Invalid arguments → 400 listing the fields; tools flagged requiresConfirmation need `confirmed: true`.",
        schema: { params: toolNameParamsSchema(), body: toolExecuteRequestSchema(), response: toolExecutionResponseSchema() },
        handler: (ctx) => execute(ctx, ctx.params.name, ctx.body),
      }),
    ],
  };
}
