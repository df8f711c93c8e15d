import { z } from "zod";
import { builtOnce } from "../core/lifecycle/built-once.js";

/**
 * Request schemas of the built-in route groups. One source for both the core's
 * validation (400 listing every failing field) and the OpenAPI document.
 *
 * @example
 * generateRequestSchema().parse({ input: { text: "Hello" }, temperature: 0.2 });
 */
export const generateRequestSchema = builtOnce(() =>
  z
    .object({
      input: z
        .object({ text: z.string().min(1) })
        .optional()
        .describe("Current call style"),
      prompt: z.string().min(1).optional().describe("Legacy call style (deprecated; use input.text)"),
      provider: z.string().min(1).optional(),
      model: z.string().min(1).optional(),
      system: z.string().optional(),
      sessionId: z.string().min(1).max(200).optional(),
      temperature: z.number().min(0).max(2).optional(),
      maxTokens: z.number().int().positive().optional(),
      tools: z
        .union([z.array(z.string().min(1)), z.boolean()])
        .optional()
        .describe("Tool names the model may call, or true for all"),
      maxSteps: z.number().int().positive().max(50).optional(),
    })
    .refine((body) => body.input !== undefined || body.prompt !== undefined, {
      message: "Either input.text or prompt is required",
      path: ["input"],
      // Run even when other fields failed, so one 400 lists every problem.
      when: (payload) => typeof payload.value === "object" && payload.value !== null,
    })
    // The refinement above, as JSON Schema for the OpenAPI document.
    .meta({ anyOf: [{ required: ["input"] }, { required: ["prompt"] }] }),
);
export type GenerateRequestBody = z.output<ReturnType<typeof generateRequestSchema>>;

/** Bounded so one request cannot ask for unbounded work. */
export const MAX_EMBED_BATCH = 100;

export const embedRequestSchema = builtOnce(() =>
  z.object({
    text: z.string().min(1),
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
  }),
);

export const embedManyRequestSchema = builtOnce(() =>
  z.object({
    texts: z.array(z.string().min(1)).min(1).max(MAX_EMBED_BATCH),
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
  }),
);

const toolArguments = builtOnce(() => z.record(z.string(), z.unknown()));

/** The body may be left out entirely for a tool without arguments. */
export const toolExecuteRequestSchema = builtOnce(() =>
  z
    .object({
      arguments: toolArguments().optional(),
      confirmed: z.boolean().optional().describe("Required for tools flagged requiresConfirmation"),
    })
    .default({}),
);

export const namedToolExecuteRequestSchema = builtOnce(() =>
  z.object({
    name: z.string().min(1),
    arguments: toolArguments().optional(),
    confirmed: z.boolean().optional(),
  }),
);

/** Query values arrive as strings; numbers are coerced. */
export const toolSearchQuerySchema = builtOnce(() =>
  z.object({
    q: z.string().optional(),
    source: z.string().optional(),
    limit: z.coerce.number().int().min(1).max(100).optional(),
  }),
);

export const sessionMessagesQuerySchema = builtOnce(() =>
  z.object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  }),
);

export const toolNameParamsSchema = builtOnce(() => z.object({ name: z.string().min(1) }));
export const mcpServerParamsSchema = builtOnce(() => z.object({ name: z.string().min(1) }));
export const mcpToolParamsSchema = builtOnce(() => z.object({ name: z.string().min(1), toolName: z.string().min(1) }));
export const sessionIdParamsSchema = builtOnce(() => z.object({ id: z.string().min(1) }));
export const sessionClearParamsSchema = builtOnce(() => z.object({ sessionId: z.string().min(1) }));
