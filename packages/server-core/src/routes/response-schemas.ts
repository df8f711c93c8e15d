import { z } from "zod";
import { builtOnce } from "../core/lifecycle/built-once.js";

/**
 * Schemas of the success envelope's `data` for the built-in groups (docs/spec.md "Response
 * bodies"). They document the API in OpenAPI; the runtime's own types are the contract.
 *
 * @example
 * generateResponseSchema().parse(await runtime.generate({ input: { text: "Hi" } }));
 */
export const tokenUsageSchema = builtOnce(() =>
  z.object({
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    totalTokens: z.number().int(),
  }),
);

export const generateResponseSchema = builtOnce(() =>
  z.object({
    content: z.string(),
    provider: z.string(),
    model: z.string(),
    usage: tokenUsageSchema(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) })),
    toolResults: z.array(z.object({ id: z.string(), name: z.string(), result: z.unknown() })),
    finishReason: z.string(),
  }),
);

export const providerSchema = builtOnce(() =>
  z.object({
    name: z.string(),
    models: z.array(z.string()),
    available: z.boolean(),
    default: z.boolean(),
  }),
);
export const providersResponseSchema = builtOnce(() => z.object({ providers: z.array(providerSchema()), total: z.number().int() }));

export const embedResponseSchema = builtOnce(() =>
  z.object({
    embedding: z.array(z.number()),
    provider: z.string(),
    model: z.string(),
    dimension: z.number().int(),
  }),
);

export const embedManyResponseSchema = builtOnce(() =>
  z.object({
    embeddings: z.array(z.array(z.number())),
    provider: z.string(),
    model: z.string(),
    count: z.number().int(),
    dimension: z.number().int(),
  }),
);

export const toolSchema = builtOnce(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()).describe("JSON Schema of the arguments"),
    source: z.string().describe("builtin, user or mcp:<server>"),
    requiresConfirmation: z.boolean().optional(),
  }),
);
export const toolListResponseSchema = builtOnce(() => z.object({ tools: z.array(toolSchema()), total: z.number().int() }));
export const toolSearchResponseSchema = builtOnce(() =>
  z.object({
    tools: z.array(toolSchema()),
    total: z.number().int(),
    query: z.object({ q: z.string().optional(), source: z.string().optional(), limit: z.number().int().optional() }),
  }),
);
export const toolExecutionResponseSchema = builtOnce(() =>
  z.object({
    name: z.string(),
    result: z.unknown(),
    duration: z.number().describe("Milliseconds"),
  }),
);

export const mcpServerSchema = builtOnce(() =>
  z.object({
    name: z.string(),
    status: z.enum(["connecting", "connected", "disconnected", "error"]),
    transport: z.enum(["stdio", "http"]),
    toolCount: z.number().int(),
    lastError: z.string().nullable(),
  }),
);
export const mcpServerListResponseSchema = builtOnce(() => z.object({ servers: z.array(mcpServerSchema()), total: z.number().int() }));
export const mcpServerDetailResponseSchema = builtOnce(() => mcpServerSchema().extend({ tools: z.array(toolSchema()) }));
export const mcpServerToolsResponseSchema = builtOnce(() =>
  z.object({ server: z.string(), tools: z.array(toolSchema()), total: z.number().int() }),
);

export const sessionSchema = builtOnce(() =>
  z.object({
    id: z.string(),
    messageCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export const sessionListResponseSchema = builtOnce(() => z.object({ sessions: z.array(sessionSchema()), total: z.number().int() }));
export const sessionMessagesResponseSchema = builtOnce(() =>
  z.object({
    sessionId: z.string(),
    messages: z.array(z.object({ role: z.enum(["system", "user", "assistant", "tool"]), content: z.string(), timestamp: z.string() })),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
);
export const sessionDeletedResponseSchema = builtOnce(() => z.object({ id: z.string(), deleted: z.literal(true) }));
export const sessionClearedResponseSchema = builtOnce(() => z.object({ sessionId: z.string(), cleared: z.literal(true) }));
