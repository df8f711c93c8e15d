import type { ConversationMessage, ConversationPart, GenerateRequest, ToolCallRecord } from "@conduit-ai/server-core";
import type { ChatMessage, ChatRequest } from "../openai-chat/chat-request-schema.js";
import { invalidRequest } from "../openai-chat/openai-wire-error.js";

/** Parameters no runtime provider is asked for: a 400 naming them, unless `dropParams`. */
const UNSUPPORTED_BY_RUNTIME = ["logit_bias", "logprobs", "top_logprobs", "reasoning_effort"] as const;

function textOf(content: ChatMessage["content"]): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

function argumentsOf(text: string, param: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through to the 400
  }
  throw invalidRequest("Tool call arguments must be a JSON object", param);
}

/** Chat messages as the runtime's conversation; tool messages get their tool's name from the call they answer. */
export function conversationOf(messages: readonly ChatMessage[]): ConversationMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((message, index): ConversationMessage => {
    switch (message.role) {
      case "system":
      case "developer":
        return { role: "system", content: textOf(message.content) };
      case "user":
        if (typeof message.content === "string") return { role: "user", content: message.content };
        return {
          role: "user",
          content: message.content.map(
            (part): ConversationPart =>
              part.type === "text" ? { type: "text", text: part.text } : { type: "image", url: part.image_url.url },
          ),
        };
      case "assistant": {
        const toolCalls: ToolCallRecord[] = (message.tool_calls ?? []).map((call, callIndex) => {
          toolNames.set(call.id, call.function.name);
          return {
            id: call.id,
            name: call.function.name,
            arguments: argumentsOf(call.function.arguments, `messages[${index}].tool_calls[${callIndex}].function.arguments`),
          };
        });
        return {
          role: "assistant",
          content: textOf(message.content as ChatMessage["content"]),
          ...(toolCalls.length ? { toolCalls } : {}),
        };
      }
      default:
        return {
          role: "tool",
          toolCallId: message.tool_call_id,
          toolName: toolNames.get(message.tool_call_id) ?? "tool",
          content: textOf(message.content),
        };
    }
  });
}

/**
 * A Chat Completions request as the runtime's: the whole conversation, the client's tools (declared,
 * never run by the runtime), `tool_choice`, `response_format` (JSON or a JSON Schema), `stop`,
 * `top_p`, `seed` and the penalties. What no provider is asked for is a 400 naming it, unless
 * `dropParams`.
 *
 * @example
 * runtime.stream(runtimeRequestOfChat(request, { provider: "local", model: "echo" }, false), context);
 */
export function runtimeRequestOfChat(
  request: ChatRequest,
  target: { provider: string; model: string },
  dropParams: boolean,
): GenerateRequest {
  if (!dropParams)
    for (const param of UNSUPPORTED_BY_RUNTIME)
      if (request[param] !== null && request[param] !== undefined && request[param] !== false)
        throw invalidRequest(`'${param}' is not supported by the model '${request.model}'`, param, "unsupported_parameter");
  const generate: GenerateRequest = { messages: conversationOf(request.messages), provider: target.provider, model: target.model };
  if (request.tools?.length)
    generate.clientTools = request.tools.map(({ function: fn }) => ({
      name: fn.name,
      ...(fn.description === undefined ? {} : { description: fn.description }),
      parameters: fn.parameters ?? { type: "object", properties: {} },
    }));
  const choice = request.tool_choice;
  if (choice !== null && choice !== undefined) generate.toolChoice = typeof choice === "string" ? choice : { name: choice.function.name };
  const format = request.response_format;
  if (format?.type === "json_object") generate.responseFormat = { type: "json" };
  if (format?.type === "json_schema") {
    const spec = (format as { json_schema: { name?: string; schema?: Record<string, unknown> } }).json_schema;
    generate.responseFormat = { type: "json", ...(spec.schema ? { schema: spec.schema } : {}), ...(spec.name ? { name: spec.name } : {}) };
  }
  if (request.stop !== null && request.stop !== undefined)
    generate.stopSequences = typeof request.stop === "string" ? [request.stop] : request.stop;
  if (request.temperature !== null && request.temperature !== undefined) generate.temperature = request.temperature;
  if (request.top_p !== null && request.top_p !== undefined) generate.topP = request.top_p;
  if (request.seed !== null && request.seed !== undefined) generate.seed = request.seed;
  if (request.frequency_penalty !== null && request.frequency_penalty !== undefined) generate.frequencyPenalty = request.frequency_penalty;
  if (request.presence_penalty !== null && request.presence_penalty !== undefined) generate.presencePenalty = request.presence_penalty;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens !== null && maxTokens !== undefined) generate.maxTokens = maxTokens;
  return generate;
}
