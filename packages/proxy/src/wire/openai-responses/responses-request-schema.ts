import { z } from "zod";

// The subset of OpenAI's Responses API request Conduit understands. Unknown fields are
// tolerated (clients add new ones often: `include`, `prompt_cache_key`, `text.verbosity`…);
// known fields of the wrong shape are a 400 naming them.

const inputText = z.looseObject({ type: z.enum(["input_text", "output_text", "text"]), text: z.string() });
const inputImage = z.looseObject({
  type: z.literal("input_image"),
  image_url: z.string().min(1).optional(),
  detail: z.string().optional(),
});
const contentPart = z.union([inputText, inputImage, z.looseObject({ type: z.string() })]);

/** A message item: `{role, content}` with or without `type: "message"`. */
const messageItem = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string(), z.array(contentPart)]),
});
const functionCallItem = z.looseObject({
  type: z.literal("function_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  /** The namespace tool the called function belongs to (Codex's MCP servers and agents). */
  namespace: z.string().min(1).nullish(),
  arguments: z.string(),
});
const functionCallOutputItem = z.looseObject({
  type: z.literal("function_call_output"),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(contentPart)]),
});
const customCallItem = z.looseObject({
  type: z.literal("custom_tool_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  input: z.string(),
});
const customCallOutputItem = z.looseObject({
  type: z.literal("custom_tool_call_output"),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(contentPart)]),
});
const reasoningItem = z.looseObject({
  type: z.literal("reasoning"),
  encrypted_content: z.string().nullish(),
  summary: z.array(z.looseObject({ text: z.string().optional() })).optional(),
});

/** A search the model ran earlier (hosted tool): nothing to replay, its findings are in the answer's text. */
const webSearchCallItem = z.looseObject({ type: z.literal("web_search_call") });

export const inputItemSchema = z.union([
  webSearchCallItem,
  functionCallItem,
  functionCallOutputItem,
  customCallItem,
  customCallOutputItem,
  reasoningItem,
  messageItem,
]);

const functionTool = z.looseObject({
  type: z.literal("function"),
  name: z.string().min(1).max(128),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
const customTool = z.looseObject({ type: z.literal("custom"), name: z.string().min(1).max(128), description: z.string().nullish() });
/** A named group of function tools; its calls name the group in `namespace`. */
const namespaceTool = z.looseObject({
  type: z.literal("namespace"),
  name: z.string().min(1).max(64),
  description: z.string().nullish(),
  tools: z.array(z.union([functionTool, z.looseObject({ type: z.string() })])),
});
/** Hosted tools (web search, file search, …) Conduit cannot run: refused by name unless `dropParams`. */
// A `namespace` tool that is not one (no `tools` array) is refused here, not taken as a hosted tool.
const otherTool = z.looseObject({ type: z.string().refine((type) => type !== "namespace", "a namespace tool needs its tools") });

const toolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.looseObject({ type: z.enum(["function", "custom"]), name: z.string().min(1) }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(inputItemSchema)]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(z.union([functionTool, customTool, namespaceTool, otherTool])).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  reasoning: z.looseObject({ effort: z.enum(["minimal", "low", "medium", "high"]).nullish(), summary: z.string().nullish() }).nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  stream: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  /** OpenAI's cache key of a session (Codex sends its session id): on a Claude target, the pool's sticky session. */
  prompt_cache_key: z.string().nullish(),
  text: z.looseObject({ format: z.looseObject({ type: z.string() }).optional() }).nullish(),
});

export type ResponsesRequest = z.output<typeof responsesRequestSchema>;
export type InputItem = z.output<typeof inputItemSchema>;
export type ResponsesTool = NonNullable<ResponsesRequest["tools"]>[number];
export type MessageItem = z.output<typeof messageItem>;

/** A `{role, content}` item (with or without `type: "message"`). */
export function isMessageItem(item: InputItem): item is MessageItem {
  return "role" in item && (item.type === undefined || item.type === "message");
}
