import type { ConversationMessage } from "@conduit-ai/server-core";
import type { ModelMessage } from "ai";

/**
 * A caller's conversation as the AI SDK's messages: user parts (text, images by URL), the
 * assistant's text and tool calls, and tool results as text outputs.
 *
 * @example
 * toModelMessages([{ role: "user", content: "Hi" }]); // [{ role: "user", content: "Hi" }]
 */
export function toModelMessages(conversation: readonly ConversationMessage[]): ModelMessage[] {
  return conversation.map((message): ModelMessage => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content };
      case "user":
        if (typeof message.content === "string") return { role: "user", content: message.content };
        return {
          role: "user",
          content: message.content.map((part) =>
            part.type === "text" ? { type: "text", text: part.text } : { type: "image", image: new URL(part.url) },
          ),
        };
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(message.content === "" ? [] : [{ type: "text" as const, text: message.content }]),
            ...(message.toolCalls ?? []).map((call) => ({
              type: "tool-call" as const,
              toolCallId: call.id,
              toolName: call.name,
              input: call.arguments,
            })),
          ],
        };
      case "tool":
        return {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: message.toolCallId,
              toolName: message.toolName,
              output: { type: "text", value: message.content },
            },
          ],
        };
    }
  });
}
