import type { ChatMessage, ChatRequest } from "./chat-request-schema.js";
import {
  type MessagesBlock,
  type MessagesMessage,
  type MessagesRequest,
  structuredOutputOf,
} from "../anthropic-messages/messages-request.js";
import { invalidRequest } from "./openai-wire-error.js";

export interface TranslateOptions {
  /** `max_tokens` when the client sends neither `max_tokens` nor `max_completion_tokens`. */
  defaultMaxTokens: number;
  /** Leave out what the Messages API has no equivalent for instead of a 400 naming it. */
  dropParams?: boolean;
}

/** OpenAI parameters the Messages API has no equivalent for. */
const UNSUPPORTED_BY_CLAUDE = ["seed", "frequency_penalty", "presence_penalty", "logit_bias", "logprobs", "top_logprobs"] as const;

/** `reasoning_effort` as an extended-thinking budget (Anthropic's minimum is 1,024 tokens). */
const THINKING_BUDGET: Record<string, number> = { low: 2_048, medium: 8_192, high: 24_576 };

function refuseUnsupported(request: ChatRequest): void {
  for (const param of UNSUPPORTED_BY_CLAUDE) {
    const value = request[param];
    if (value !== null && value !== undefined && value !== false)
      throw invalidRequest(`'${param}' is not supported by Claude models`, param, "unsupported_parameter");
  }
  const format = request.response_format;
  // A JSON Schema becomes Claude's structured output; plain JSON mode has no schema to give it.
  if (format && format.type !== "text" && !(format.type === "json_schema" && format.json_schema.schema))
    throw invalidRequest(
      `response_format of type '${format.type}' is not supported by Claude models (json_schema with a schema is)`,
      "response_format",
      "unsupported_parameter",
    );
}

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/=\s]+)$/;

export function imageBlock(url: string, param: string): MessagesBlock {
  const data = DATA_URL.exec(url);
  if (data) return { type: "image", source: { type: "base64", media_type: data[1]!, data: data[2]!.replace(/\s/g, "") } };
  if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
  throw invalidRequest("Image URLs must be https URLs or base64 data URLs of png, jpeg, gif or webp images", param, "invalid_image_url");
}

function textOf(content: string | ReadonlyArray<{ text?: string }> | null | undefined): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : content.map((part) => part.text ?? "").join("");
}

function parseArguments(text: string, param: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("Tool call arguments must be a JSON object", param);
  }
}

type TurnMessage = Exclude<ChatMessage, { role: "system" | "developer" }>;

function blocksOf(message: TurnMessage, index: number): MessagesBlock[] {
  const param = `messages[${index}]`;
  if (message.role === "tool") return [{ type: "tool_result", tool_use_id: message.tool_call_id, content: textOf(message.content) }];
  if (message.role === "user") {
    if (typeof message.content === "string") return [{ type: "text", text: message.content }];
    return message.content.map((part, partIndex) =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : imageBlock(part.image_url.url, `${param}.content[${partIndex}].image_url.url`),
    );
  }
  const blocks: MessagesBlock[] = [];
  const text = textOf(message.content);
  if (text !== "") blocks.push({ type: "text", text });
  message.tool_calls?.forEach((call, callIndex) => {
    const input = parseArguments(call.function.arguments, `${param}.tool_calls[${callIndex}].function.arguments`);
    blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input });
  });
  return blocks;
}

/** Consecutive turns of one role become one message: tool results must follow their tool uses in one user turn. */
function appendTurn(messages: MessagesMessage[], role: "user" | "assistant", blocks: MessagesBlock[]): void {
  if (blocks.length === 0) return;
  const last = messages.at(-1);
  if (last?.role === role) last.content.push(...blocks);
  else messages.push({ role, content: blocks });
}

function toolChoiceOf(request: ChatRequest): MessagesRequest["tool_choice"] {
  const choice = request.tool_choice;
  const parallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === null || choice === undefined)
    return request.parallel_tool_calls === false && request.tools?.length ? { type: "auto", ...parallel } : undefined;
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return { type: "auto", ...parallel };
  if (choice === "required") return { type: "any", ...parallel };
  return { type: "tool", name: choice.function.name, ...parallel };
}

/**
 * An OpenAI Chat Completions request as a Messages API request: system/developer turns →
 * `system`, tool calls and tool messages → `tool_use`/`tool_result` blocks, images → image blocks.
 *
 * @example
 * toMessagesRequest({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] }, { defaultMaxTokens: 4096 });
 */
export function toMessagesRequest(request: ChatRequest, options: TranslateOptions): MessagesRequest {
  if (!options.dropParams) refuseUnsupported(request);
  const system: string[] = [];
  const messages: MessagesMessage[] = [];
  for (const [index, message] of request.messages.entries()) {
    if (message.role === "system" || message.role === "developer") system.push(textOf(message.content));
    else appendTurn(messages, message.role === "assistant" ? "assistant" : "user", blocksOf(message as TurnMessage, index));
  }
  if (messages.length === 0) throw invalidRequest("At least one user message is required", "messages");
  const result: MessagesRequest = {
    model: request.model,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? options.defaultMaxTokens,
    messages,
  };
  if (system.length > 0) result.system = system.join("\n\n");
  if (request.stop !== null && request.stop !== undefined)
    result.stop_sequences = typeof request.stop === "string" ? [request.stop] : request.stop;
  // OpenAI's temperature runs 0–2, the Messages API's 0–1.
  if (request.temperature !== null && request.temperature !== undefined) result.temperature = Math.min(request.temperature, 1);
  if (request.top_p !== null && request.top_p !== undefined) result.top_p = request.top_p;
  if (request.stream) result.stream = true;
  // With `none` the tools stay declared: earlier `tool_use` blocks in the history still need them.
  if (request.tools && request.tools.length > 0) {
    result.tools = request.tools.map(({ function: fn }) => ({
      name: fn.name,
      ...(fn.description === undefined ? {} : { description: fn.description }),
      input_schema: fn.parameters ?? { type: "object", properties: {} },
    }));
  }
  const toolChoice = result.tools ? toolChoiceOf(request) : undefined;
  if (toolChoice) result.tool_choice = toolChoice;
  if (request.user) result.metadata = { user_id: request.user };
  const format = request.response_format;
  if (format?.type === "json_schema" && format.json_schema.schema) result.output_config = structuredOutputOf(format.json_schema.schema);
  const budget = request.reasoning_effort ? THINKING_BUDGET[request.reasoning_effort] : undefined;
  if (budget !== undefined) {
    // Extended thinking needs room for the answer after the budget, and takes no temperature or top_p.
    result.max_tokens = Math.max(result.max_tokens, budget + options.defaultMaxTokens);
    result.thinking = { type: "enabled", budget_tokens: budget };
    if ((result.temperature !== undefined || result.top_p !== undefined) && !options.dropParams)
      throw invalidRequest(
        "temperature and top_p cannot be set together with reasoning_effort for Claude models",
        "temperature",
        "unsupported_parameter",
      );
    delete result.temperature;
    delete result.top_p;
  }
  return result;
}
