/**
 * What the lean Chat Completions engine sends upstream: the caller's conversation and the
 * generation plan in that API's own wire shape. Kept apart from the engine so the stream
 * reading and the tool loop read without the request's field mapping.
 */
import type { ClientToolDefinition, ConversationMessage } from "@conduit-ai/server-core";
import type { RuntimeTool } from "../tools/runtime-tool.js";
import type { GenerationPlan } from "./generation-part.js";

/** A Chat Completions message as sent upstream. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | Array<{ type: "text"; text: string } | { type: "image_url"; image_url: { url: string } }> }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCallMessage[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ToolCallMessage {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Tool definitions as Chat Completions wants them; one per tool object, built once. */
const toolDefinitions = new WeakMap<RuntimeTool, Record<string, unknown>>();
function toolDefinition(tool: RuntimeTool): Record<string, unknown> {
  let definition = toolDefinitions.get(tool);
  if (definition === undefined) {
    definition = {
      type: "function",
      function: { name: tool.info.name, description: tool.info.description, parameters: tool.info.inputSchema },
    };
    toolDefinitions.set(tool, definition);
  }
  return definition;
}

/** The caller's conversation in Chat Completions' own terms (it is that API's native shape). */
function conversationMessages(conversation: readonly ConversationMessage[]): ChatMessage[] {
  return conversation.map((message): ChatMessage => {
    switch (message.role) {
      case "system":
        return message;
      case "user":
        return {
          role: "user",
          content:
            typeof message.content === "string"
              ? message.content
              : message.content.map((part) => (part.type === "text" ? part : { type: "image_url" as const, image_url: { url: part.url } })),
        };
      case "assistant":
        return {
          role: "assistant",
          content: message.content === "" && message.toolCalls?.length ? null : message.content,
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function" as const,
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        };
      default:
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

/** The first step's messages: the system prompt, then the conversation (or the history and the input text). */
export function initialMessages(plan: GenerationPlan): ChatMessage[] {
  const messages: ChatMessage[] = plan.system === undefined ? [] : [{ role: "system", content: plan.system }];
  if (plan.conversation !== undefined) return [...messages, ...conversationMessages(plan.conversation)];
  for (const message of plan.history) {
    if (message.role === "user" || message.role === "assistant") messages.push({ role: message.role, content: message.content });
  }
  messages.push({ role: "user", content: plan.text });
  return messages;
}

/** The streaming request body of one step (usage included in the last chunk). */
export function requestBody(plan: GenerationPlan, messages: ChatMessage[]): Record<string, unknown> {
  return {
    model: plan.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(plan.temperature === undefined ? {} : { temperature: plan.temperature }),
    ...(plan.maxTokens === undefined ? {} : { max_tokens: plan.maxTokens }),
    ...(plan.tools.length + plan.clientTools.length === 0
      ? {}
      : { tools: [...plan.tools.map(toolDefinition), ...plan.clientTools.map(clientToolDefinition)] }),
    ...(plan.toolChoice === undefined
      ? {}
      : {
          tool_choice:
            typeof plan.toolChoice === "string" ? plan.toolChoice : { type: "function", function: { name: plan.toolChoice.name } },
        }),
    ...(plan.responseFormat === undefined ? {} : { response_format: responseFormatOf(plan.responseFormat) }),
    ...(plan.stopSequences === undefined ? {} : { stop: plan.stopSequences }),
    ...(plan.topP === undefined ? {} : { top_p: plan.topP }),
    ...(plan.seed === undefined ? {} : { seed: plan.seed }),
    ...(plan.frequencyPenalty === undefined ? {} : { frequency_penalty: plan.frequencyPenalty }),
    ...(plan.presencePenalty === undefined ? {} : { presence_penalty: plan.presencePenalty }),
  };
}

function clientToolDefinition(tool: ClientToolDefinition): Record<string, unknown> {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

function responseFormatOf(format: NonNullable<GenerationPlan["responseFormat"]>): Record<string, unknown> {
  if (format.schema === undefined) return { type: "json_object" };
  return { type: "json_schema", json_schema: { name: format.name ?? "response", schema: format.schema } };
}
