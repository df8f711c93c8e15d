import { z } from "zod";

// The subset of OpenAI's Chat Completions request Conduit understands. Unknown fields are
// tolerated (SDKs add new ones often); known fields of the wrong shape are a 400 naming them.

const textPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const imagePart = z.looseObject({
  type: z.literal("image_url"),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.string().optional() }),
});
const userPart = z.discriminatedUnion("type", [textPart, imagePart]);

const toolCall = z.looseObject({
  id: z.string().min(1),
  type: z.literal("function").optional(),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

const instructionMessage = z.looseObject({
  role: z.enum(["system", "developer"]),
  content: z.union([z.string(), z.array(textPart)]),
});
const userMessage = z.looseObject({
  role: z.literal("user"),
  content: z.union([z.string(), z.array(userPart)]),
});
const assistantMessage = z.looseObject({
  role: z.literal("assistant"),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() })), z.null()]).optional(),
  tool_calls: z.array(toolCall).optional(),
});
const toolMessage = z.looseObject({
  role: z.literal("tool"),
  tool_call_id: z.string().min(1),
  content: z.union([z.string(), z.array(textPart)]),
});

export const chatMessageSchema = z.discriminatedUnion("role", [instructionMessage, userMessage, assistantMessage, toolMessage]);

const functionTool = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().min(1).max(128),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

const toolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string().min(1) }) }),
]);

export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.number().int().min(1).max(1, "only n=1 is supported").nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(functionTool).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  user: z.string().nullish(),
  /** OpenAI's cache key of a session: on a Claude target, the pool's sticky session. */
  prompt_cache_key: z.string().nullish(),
  response_format: z
    .union([
      z.looseObject({ type: z.enum(["text", "json_object"]) }),
      z.looseObject({
        type: z.literal("json_schema"),
        json_schema: z.looseObject({ name: z.string().optional(), schema: z.record(z.string(), z.unknown()).optional() }),
      }),
    ])
    .nullish(),
  seed: z.number().int().nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().nullish(),
  reasoning_effort: z.enum(["minimal", "low", "medium", "high"]).nullish(),
});

export type ChatRequest = z.output<typeof chatRequestSchema>;
export type ChatMessage = z.output<typeof chatMessageSchema>;
