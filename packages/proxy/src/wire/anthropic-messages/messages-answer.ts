import type { AnthropicWireUsage } from "@conduit-ai/server-core/pricing";
// The Messages API's answer: a `message` object, or the stream of events that builds one
// (https://docs.anthropic.com/en/api/messages-streaming). The proxy's internal answer vocabulary:
// every target answers in it, every surface encodes from it.

/** Token counts of an answer (`message_start` and `message_delta` carry parts of them). */
export type MessagesUsage = AnthropicWireUsage;

/** A content block of an answer. Upstream's blocks are read as they come: unknown kinds pass unread. */
export type MessagesContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "server_tool_use"; id: string; name: string; input: unknown }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: string; [field: string]: unknown };

/** A whole answer: the Messages API's `message` object. */
export interface MessageObject {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: MessagesContentBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

/** A delta of a content block: text, tool input JSON, thinking, or its signature. */
export type MessagesDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: string; [field: string]: unknown };

/**
 * One event of a Messages stream. A stream that ends well ends with `message_stop`; one that
 * fails ends with `error` (upstream's, or one the proxy adds when the stream broke).
 */
export type MessagesStreamEvent =
  | { type: "message_start"; message: MessageObject }
  | { type: "content_block_start"; index: number; content_block: MessagesContentBlock }
  | { type: "content_block_delta"; index: number; delta: MessagesDelta }
  | { type: "content_block_stop"; index: number }
  | { type: "message_delta"; delta: { stop_reason: string | null; stop_sequence?: string | null }; usage: MessagesUsage }
  | { type: "message_stop" }
  | { type: "ping" }
  | { type: "error"; error: { type: string; message: string } };
