import {
  type ChatToolCall,
  type ChatUsage,
  type FinishReason,
  type VendorUsage,
  chatUsageOf,
  finishReasonOf,
} from "./chat-completion-shapes.js";

interface VendorMessage {
  id?: string;
  model?: string;
  content?: Array<{ type: string; text?: string; id?: string; name?: string; input?: unknown }>;
  stop_reason?: string | null;
  usage?: VendorUsage;
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: { role: "assistant"; content: string | null; refusal: null; tool_calls?: ChatToolCall[] };
    logprobs: null;
    finish_reason: FinishReason;
  }>;
  usage: ChatUsage;
}

/**
 * A Messages API answer as a `chat.completion`: text blocks joined into `content`, `tool_use`
 * blocks as `tool_calls` (arguments re-encoded as JSON text), thinking blocks left out.
 *
 * @example
 * fromMessagesResponse(await upstream.json(), { id: "chatcmpl-1", created: 1700000000, model: "claude-sonnet-4-5" });
 */
export function fromMessagesResponse(message: VendorMessage, meta: { id: string; created: number; model: string }): ChatCompletion {
  let text = "";
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content ?? []) {
    if (block.type === "text") text += block.text ?? "";
    else if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id ?? "",
        type: "function",
        function: { name: block.name ?? "", arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const hasText = text !== "" || toolCalls.length === 0;
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: message.model ?? meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: hasText ? text : null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReasonOf(message.stop_reason),
      },
    ],
    usage: chatUsageOf(message.usage ?? {}),
  };
}
