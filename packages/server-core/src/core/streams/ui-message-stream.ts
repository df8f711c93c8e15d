import type { IncomingHeaders } from "../../contracts/context.js";
import type { ResponseHeaders } from "../../contracts/http.js";
import type { DataStreamEvent } from "../../contracts/stream-event.js";
import { formatSseFrame } from "./sse-frame.js";

/**
 * The Vercel AI SDK's UI message stream protocol (v1), spoken by `/agent/stream` on request so a
 * `useChat` front end reads Conduit directly: SSE `data:` frames of UI message chunks (`start`,
 * `text-start`, `text-delta`, `text-end`, `tool-input-available`, `tool-output-available`,
 * `finish`, `error`), then `data: [DONE]`. Selected by `?format=ui-message` or the request
 * header `x-conduit-stream-format: ui-message`.
 */
export const UI_MESSAGE_STREAM_FORMAT = "ui-message";
export const UI_MESSAGE_STREAM_REQUEST_HEADER = "x-conduit-stream-format";

/** True when the client asked for the UI message stream protocol. */
export function wantsUiMessageStream(headers: IncomingHeaders, query: Record<string, string | string[]>): boolean {
  return query.format === UI_MESSAGE_STREAM_FORMAT || headers[UI_MESSAGE_STREAM_REQUEST_HEADER] === UI_MESSAGE_STREAM_FORMAT;
}

/**
 * `ctx.state` key a route sets to the format its stream should use when the client names none
 * (no `?format=`, no `x-conduit-stream-format`, no NDJSON `Accept`): `/agent/stream` sets
 * `ui-message` when the body is a `useChat` request, since that client can read nothing else.
 */
export const PREFERRED_STREAM_FORMAT_STATE = "conduit.preferredStreamFormat";

/** True when `body` is a `useChat` request (`{messages: [...]}` without Conduit's `input` or `prompt`). */
export function isUiChatRequest(body: unknown): boolean {
  const chat = record(body);
  return Array.isArray(chat.messages) && !("input" in chat) && !("prompt" in chat);
}

/** The headers the AI SDK's own `createUIMessageStreamResponse` sends. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<ResponseHeaders> = Object.freeze({
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  "x-vercel-ai-ui-message-stream": "v1",
});

const FINISH_REASONS = new Set(["stop", "length", "content-filter", "tool-calls", "error", "other"]);
const DONE_FRAME = formatSseFrame({ data: "[DONE]" });

const frame = (chunk: Record<string, unknown>) => formatSseFrame({ data: JSON.stringify(chunk) });
const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

/**
 * Maps `DataStreamEvent`s to UI message chunks. Stateful per stream: it opens the message,
 * opens a text part the source forgot to start (the SDK's reader rejects a delta for an unknown
 * part) and closes parts still open before the last chunk.
 */
export class UiMessageStreamEncoder {
  private started = false;
  private readonly openTextParts = new Set<string>();

  encode(event: DataStreamEvent): string {
    let out = this.started ? "" : frame({ type: "start" });
    this.started = true;
    const data = record(event.data);
    const textId = String(event.id ?? data.id ?? "text-0");
    switch (event.type) {
      case "text-start":
        this.openTextParts.add(textId);
        return `${out}${frame({ type: "text-start", id: textId })}`;
      case "text-delta":
        if (!this.openTextParts.has(textId)) out += this.encode({ ...event, type: "text-start" });
        return `${out}${frame({ type: "text-delta", id: textId, delta: String(data.delta ?? "") })}`;
      case "text-end":
        if (!this.openTextParts.delete(textId)) return out;
        return `${out}${frame({ type: "text-end", id: textId })}`;
      case "tool-call":
        return `${out}${frame({ type: "tool-input-available", toolCallId: String(data.id ?? event.id), toolName: String(data.name), input: data.arguments ?? {} })}`;
      case "tool-result":
        return `${out}${frame({ type: "tool-output-available", toolCallId: String(data.id ?? event.id), output: data.result ?? null })}`;
      case "data":
        return `${out}${frame({ type: "data-conduit", data: event.data ?? null })}`;
      case "error":
        return `${out}${this.closeTextParts()}${frame({ type: "error", errorText: String(data.message ?? "Stream failed") })}${DONE_FRAME}`;
      case "finish": {
        const reason = typeof data.reason === "string" && FINISH_REASONS.has(data.reason) ? { finishReason: data.reason } : {};
        const metadata = {
          ...(typeof data.reason === "string" ? { reason: data.reason } : {}),
          ...(data.usage ? { usage: data.usage } : {}),
        };
        return `${out}${this.closeTextParts()}${frame({ type: "finish", ...reason, messageMetadata: metadata })}${DONE_FRAME}`;
      }
    }
    return out;
  }

  private closeTextParts(): string {
    const frames = [...this.openTextParts].map((id) => frame({ type: "text-end", id })).join("");
    this.openTextParts.clear();
    return frames;
  }
}

/**
 * A `useChat` request (`{id, messages: UIMessage[], trigger}`, as `DefaultChatTransport` posts it)
 * as a Conduit `GenerateRequest`: the last user message's text parts are the input, and the chat
 * id is the `sessionId` (Conduit's memory keeps the history). Anything else is left as it is.
 */
export function fromUiChatRequest(body: unknown): unknown {
  if (!isUiChatRequest(body)) return body;
  const chat = record(body);
  const lastUser = [...(chat.messages as unknown[])].reverse().find((message) => record(message).role === "user");
  const parts = record(lastUser).parts;
  const text = Array.isArray(parts)
    ? parts
        .map(record)
        .filter((part) => part.type === "text" && typeof part.text === "string")
        .map((part) => part.text)
        .join("")
    : "";
  const { messages: _messages, id, trigger: _trigger, messageId: _messageId, ...rest } = chat;
  return {
    ...rest,
    input: { text },
    ...(typeof id === "string" && id.length > 0 && rest.sessionId === undefined ? { sessionId: id } : {}),
  };
}
