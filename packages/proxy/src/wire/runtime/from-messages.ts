import type { ConversationMessage, ConversationPart, GenerateRequest, ToolCallRecord } from "@conduit-ai/server-core";
import type { MessagesBody, MessagesBodyBlock as Block } from "../anthropic-messages/messages-request.js";

const textOf = (content: string | Block[] | undefined): string =>
  typeof content === "string"
    ? content
    : (content ?? []).map((block) => (block.type === "text" ? (block as { text: string }).text : "")).join("");

function imageUrlOf(block: Extract<Block, { type: "image" }>): string {
  return block.source.type === "url" ? block.source.url : `data:${block.source.media_type};base64,${block.source.data}`;
}

/** Messages turns as the runtime's conversation: tool results become tool turns named after the call they answer. */
function conversationOf(body: MessagesBody): ConversationMessage[] {
  const toolNames = new Map<string, string>();
  const turns: ConversationMessage[] = [];
  const system = textOf(body.system);
  if (system !== "") turns.push({ role: "system", content: system });
  for (const message of body.messages) {
    if (typeof message.content === "string") {
      turns.push({ role: message.role, content: message.content });
      continue;
    }
    if (message.role === "assistant") {
      const toolCalls: ToolCallRecord[] = [];
      for (const block of message.content)
        if (block.type === "tool_use") {
          const call = block as Extract<Block, { type: "tool_use" }>;
          toolNames.set(call.id, call.name);
          toolCalls.push({ id: call.id, name: call.name, arguments: call.input ?? {} });
        }
      turns.push({ role: "assistant", content: textOf(message.content), ...(toolCalls.length ? { toolCalls } : {}) });
      continue;
    }
    const parts: ConversationPart[] = [];
    for (const block of message.content) {
      if (block.type === "tool_result") {
        const result = block as Extract<Block, { type: "tool_result" }>;
        const toolName = toolNames.get(result.tool_use_id) ?? "tool";
        turns.push({ role: "tool", toolCallId: result.tool_use_id, toolName, content: textOf(result.content) });
      } else if (block.type === "text") parts.push({ type: "text", text: (block as { text: string }).text });
      else if (block.type === "image") parts.push({ type: "image", url: imageUrlOf(block as Extract<Block, { type: "image" }>) });
    }
    if (parts.length > 0) turns.push({ role: "user", content: parts });
  }
  return turns;
}

function toolChoiceOf(choice: MessagesBody["tool_choice"]): GenerateRequest["toolChoice"] | undefined {
  if (!choice) return undefined;
  if (choice.type === "tool" && choice.name) return { name: choice.name };
  return choice.type === "any" ? "required" : choice.type === "none" ? "none" : "auto";
}

/**
 * A Messages API request as the runtime's (a Claude model's fallback to another provider): the
 * whole conversation, the client's tools and `tool_choice`, `max_tokens`, `temperature`, `top_p`
 * and `stop_sequences`.
 *
 * @example
 * runtime.generate(runtimeRequestOfMessages(body, { provider: "local", model: "local-echo" }));
 */
export function runtimeRequestOfMessages(body: MessagesBody, target: { provider: string; model: string }): GenerateRequest {
  const request: GenerateRequest = { messages: conversationOf(body), provider: target.provider, model: target.model };
  if (body.tools?.length)
    request.clientTools = body.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.input_schema ?? { type: "object", properties: {} },
    }));
  const choice = toolChoiceOf(body.tool_choice);
  if (choice) request.toolChoice = choice;
  if (typeof body.max_tokens === "number") request.maxTokens = body.max_tokens;
  if (typeof body.temperature === "number") request.temperature = body.temperature;
  if (typeof body.top_p === "number") request.topP = body.top_p;
  if (body.stop_sequences?.length) request.stopSequences = body.stop_sequences;
  return request;
}
