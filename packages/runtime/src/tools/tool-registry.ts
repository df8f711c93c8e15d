import {
  type RuntimeCallContext,
  ServerAdapterError,
  ServerValidationError,
  type ToolExecuteOptions,
  formatZodIssues,
  type ToolExecutionResult,
  type ToolInfo,
  type ToolRegistry,
  type ToolSearchQuery,
  withSpan,
} from "@conduit-ai/server-core";
import { z } from "zod";
import { confirmationRequired, toolExecutionFailed, toolNotFound } from "../runtime-errors.js";
import type { RuntimeTool, ToolDefinition, ToolSource } from "./runtime-tool.js";

const DEFAULT_SEARCH_LIMIT = 20;

function fromDefinition(definition: ToolDefinition): RuntimeTool {
  const inputSchema = z.toJSONSchema(definition.schema, { io: "input" }) as Record<string, unknown>;
  delete inputSchema.$schema;
  return {
    info: {
      name: definition.name,
      description: definition.description,
      inputSchema,
      source: definition.source ?? "user",
      requiresConfirmation: definition.requiresConfirmation ?? false,
    },
    validate(args) {
      const parsed = definition.schema.safeParse(args);
      if (parsed.success) return parsed.data;
      throw new ServerValidationError(`Invalid arguments for tool "${definition.name}"`, formatZodIssues(parsed.error));
    },
    async run(args, context) {
      return definition.execute(args, context);
    },
  };
}

/**
 * The runtime's tool registry: zod-typed tools registered in process plus tools from
 * dynamic sources (MCP servers), all listed, searched and executed the same way.
 *
 * @example
 * const tools = new RuntimeToolRegistry();
 * tools.register({ name: "echo", description: "Echo text", schema: z.object({ text: z.string() }), execute: ({ text }) => text });
 * await tools.execute("echo", { text: "hi" }); // { name: "echo", result: "hi", duration: 0 }
 */
export class RuntimeToolRegistry implements ToolRegistry {
  readonly #tools = new Map<string, RuntimeTool>();
  readonly #sources: ToolSource[] = [];

  /** Adds or replaces a tool. Returns the registry for chaining. */
  register<TSchema extends z.ZodType>(definition: ToolDefinition<TSchema>): this {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(definition.name)) {
      // Provider APIs (OpenAI, Anthropic) reject other tool names, so refuse them up front.
      throw new ServerValidationError("Invalid tool name", [{ field: "name", message: "Use 1-64 letters, digits, _ or -" }]);
    }
    this.#tools.set(definition.name, fromDefinition(definition as unknown as ToolDefinition));
    return this;
  }

  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** Adds tools whose set is computed on every look-up (used for MCP servers). */
  addSource(source: ToolSource): void {
    this.#sources.push(source);
  }

  /** Every tool, registered first, then dynamic sources; a registered name wins over a dynamic one. */
  resolveAll(): RuntimeTool[] {
    const all = new Map(this.#tools);
    for (const source of this.#sources) {
      for (const tool of source()) if (!all.has(tool.info.name)) all.set(tool.info.name, tool);
    }
    return [...all.values()];
  }

  resolve(name: string): RuntimeTool | undefined {
    return this.#tools.get(name) ?? this.resolveAll().find((tool) => tool.info.name === name);
  }

  list(): ToolInfo[] {
    return this.resolveAll().map((tool) => tool.info);
  }

  search(query: ToolSearchQuery): ToolInfo[] {
    const needle = query.q?.trim().toLowerCase() ?? "";
    const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
    return this.list()
      .filter((tool) => query.source === undefined || tool.source === query.source || tool.source.startsWith(`${query.source}:`))
      .filter((tool) => needle === "" || [tool.name, tool.description, tool.source].some((field) => field.toLowerCase().includes(needle)))
      .slice(0, Math.max(0, limit));
  }

  get(name: string): ToolInfo | undefined {
    return this.resolve(name)?.info;
  }

  async execute(name: string, args: Record<string, unknown>, options: ToolExecuteOptions = {}): Promise<ToolExecutionResult> {
    const tool = this.resolve(name);
    if (tool === undefined) throw toolNotFound(name);
    if (tool.info.requiresConfirmation && options.confirmed !== true) throw confirmationRequired(name);
    const parsed = tool.validate(args ?? {});
    const started = performance.now();
    const context: RuntimeCallContext = { ...options };
    try {
      const attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.description": tool.info.description,
      };
      // Under the caller's span; the tool runs with its own as the parent of what it calls (an MCP server).
      const result = await withSpan(`execute_tool ${name}`, { attributes, parent: context.traceSpan }, (span) =>
        tool.run(parsed, span === undefined ? context : { ...context, traceSpan: span }),
      );
      return { name, result, duration: Math.round(performance.now() - started) };
    } catch (error) {
      if (ServerAdapterError.isInstance(error)) throw error;
      throw toolExecutionFailed(name, error instanceof Error ? error.message : String(error));
    }
  }
}
