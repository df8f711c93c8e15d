import type { RuntimeCallContext, ToolInfo } from "@conduit-ai/server-core";
import type { z } from "zod";

/** A tool as a user registers it: zod-typed arguments and an implementation. */
export interface ToolDefinition<TSchema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: TSchema;
  execute: (args: z.output<TSchema>, context: RuntimeCallContext) => unknown | Promise<unknown>;
  /** Refuse with `USER_CONFIRMATION_REQUIRED` unless the call passes `confirmed: true`. */
  requiresConfirmation?: boolean;
  /** `user` when omitted; `builtin` for the runtime's own tools. */
  source?: string;
}

/**
 * The registry's internal form: tools from zod definitions and from MCP servers look the same.
 * `validate` returns the parsed arguments or throws a 400.
 */
export interface RuntimeTool {
  info: ToolInfo;
  validate(args: Record<string, unknown>): unknown;
  run(args: unknown, context: RuntimeCallContext): Promise<unknown>;
}

/** A provider of tools whose set changes over time (an MCP server connecting, dying, reconnecting). */
export type ToolSource = () => RuntimeTool[];
