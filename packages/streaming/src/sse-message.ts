import { formatSseComment as formatCoreSseComment, formatSseFrame } from "@conduit-ai/server-core/web";

/** One SSE message (spec `SSEEventOptions`). */
export interface SSEEventOptions {
  event?: string;
  data: string;
  id?: string;
  /** Reconnection delay the client should use, in milliseconds. */
  retry?: number;
}

/**
 * Formats one SSE message with the core's one SSE framer (`formatSseFrame`), so a message a
 * handler builds reads exactly like every stream Conduit serves. Multi-line `data` becomes
 * several `data:` lines (the client joins them with `\n`); `event` and `id` lose any CR/LF, so
 * no field can start a new event; `retry` is sent only when a non-negative integer.
 *
 * @example
 * formatSseMessage({ event: "note", data: "a\nb", id: "1", retry: 3000 });
 * // "event: note\nid: 1\nretry: 3000\ndata: a\ndata: b\n\n"
 */
export function formatSseMessage(options: SSEEventOptions): string {
  return formatSseFrame(options);
}

/**
 * An SSE comment line (ignored by clients; keeps proxies from timing the stream out), framed by
 * the core's `formatSseComment`.
 *
 * @example
 * formatSseComment("keep-alive"); // ": keep-alive\n\n"
 */
export function formatSseComment(text: string): string {
  return formatCoreSseComment(text);
}
