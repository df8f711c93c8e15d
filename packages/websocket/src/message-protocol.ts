import type { DataStreamEvent } from "@conduit-ai/server-core";

/** Client → server: `{type, id?, payload}`. */
export interface ClientMessage {
  type: string;
  id?: string;
  payload?: unknown;
}

export type ServerMessageType = "connected" | "result" | "stream-event" | "tool-result" | "error";

/** Server → client: `{type, id, payload}`; `id` echoes the client message's id (null when it had none). */
export type ServerMessage =
  | { type: "connected"; id: string; payload: { connectionId: string; userId?: string } }
  | { type: "result" | "tool-result"; id: string | null; payload: unknown }
  | { type: "stream-event"; id: string | null; payload: DataStreamEvent }
  | {
      type: "error";
      id: string | null;
      payload: { code: string; message: string; details?: unknown /** Seconds (429, 503). */; retryAfter?: number };
    };

export type ParsedClientMessage = { ok: true; message: ClientMessage } | { ok: false; id: string | null; code: string; message: string };

/**
 * Parses one text frame. Invalid JSON, a non-object, a missing `type` or a non-string
 * `id` are reported (as an `error` message by the caller), never thrown.
 *
 * @example
 * parseClientMessage('{"type":"generate","id":"1","payload":{"input":{"text":"hi"}}}');
 */
export function parseClientMessage(text: string): ParsedClientMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, id: null, code: "VALIDATION_ERROR", message: "Message is not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, id: null, code: "VALIDATION_ERROR", message: "Message must be a JSON object" };
  }
  const record = value as Record<string, unknown>;
  const id = typeof record.id === "string" && record.id.length <= 200 ? record.id : null;
  if (record.id !== undefined && id === null)
    return { ok: false, id: null, code: "VALIDATION_ERROR", message: "Message id must be a string of at most 200 characters" };
  if (typeof record.type !== "string" || record.type.length === 0 || record.type.length > 100) {
    return { ok: false, id, code: "VALIDATION_ERROR", message: "Message type is required" };
  }
  return { ok: true, message: { type: record.type, ...(id === null ? {} : { id }), payload: record.payload } };
}
