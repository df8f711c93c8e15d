import { ServerValidationError } from "@conduit-ai/server-core";

// The Messages API's request: what the proxy builds from another wire (`MessagesRequest`), and
// what it reads of a client's body when a target other than the pool answers it (`MessagesBody`).

/** A Messages API content block as Conduit sends it. */
export type MessagesBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string };

export interface MessagesMessage {
  role: "user" | "assistant";
  content: MessagesBlock[];
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessagesMessage[];
  system?: string;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  tools?: Array<{ name: string; description?: string; input_schema: Record<string, unknown> }>;
  tool_choice?: { type: "auto" | "any" | "none" | "tool"; name?: string; disable_parallel_tool_use?: boolean };
  metadata?: { user_id: string };
  thinking?: { type: "enabled"; budget_tokens: number };
  /** Structured output: the answer's text is JSON matching the schema (Claude's `output_config.format`). */
  output_config?: { format: { type: "json_schema"; schema: Record<string, unknown> } };
}

/**
 * A JSON Schema response format as Claude's structured output; a model without it answers
 * upstream's 400, which the client gets in its own shape (never a silent drop).
 */
export function structuredOutputOf(schema: Record<string, unknown>): NonNullable<MessagesRequest["output_config"]> {
  return { format: { type: "json_schema", schema } };
}

/** A content block of a request as a client sent it (read loosely: unknown kinds pass unread). */
export type MessagesBodyBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content?: string | MessagesBodyBlock[] }
  | { type: string };

/** The part of a Messages API request a runtime provider is asked for. */
export interface MessagesBody {
  model: string;
  system?: string | MessagesBodyBlock[];
  messages: { role: "user" | "assistant"; content: string | MessagesBodyBlock[] }[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: { name: string; description?: string; input_schema?: Record<string, unknown> }[];
  tool_choice?: { type: "auto" | "any" | "tool" | "none"; name?: string };
}

/** Thrown: the group's error writer answers it in Anthropic's shape (`invalid_request_error`). */
const invalid = (message: string) => new ServerValidationError(message, [{ field: "body", message }]);

/** A Messages body parsed for a runtime target; not an object with `messages` is Anthropic's 400. */
export function parseMessagesBody(body: Uint8Array): MessagesBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
  } catch {
    throw invalid("The request body is not valid JSON");
  }
  const candidate = parsed as Partial<MessagesBody> | null;
  if (!candidate || typeof candidate !== "object" || !Array.isArray(candidate.messages) || typeof candidate.model !== "string")
    throw invalid("messages: a list of messages is required");
  return candidate as MessagesBody;
}
