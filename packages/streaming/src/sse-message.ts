/** One SSE message (spec `SSEEventOptions`). */
export interface SSEEventOptions {
  event?: string;
  data: string;
  id?: string;
  /** Reconnection delay the client should use, in milliseconds. */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;
const stripLineBreaks = (value: string) => value.replace(/[\r\n]/g, "");

/**
 * Formats one SSE message. Multi-line `data` becomes several `data:` lines (the client
 * joins them with `\n`); `event` and `id` lose any CR/LF, so no field can start a new
 * event; `retry` is sent only when a non-negative integer.
 *
 * @example
 * formatSseMessage({ event: "note", data: "a\nb", id: "1", retry: 3000 });
 * // "event: note\nid: 1\nretry: 3000\ndata: a\ndata: b\n\n"
 */
export function formatSseMessage(options: SSEEventOptions): string {
  let message = "";
  if (options.event !== undefined) message += `event: ${stripLineBreaks(options.event)}\n`;
  if (options.id !== undefined) message += `id: ${stripLineBreaks(options.id).replace(/\0/g, "")}\n`;
  if (options.retry !== undefined && Number.isInteger(options.retry) && options.retry >= 0) message += `retry: ${options.retry}\n`;
  for (const line of options.data.split(LINE_BREAK)) message += `data: ${line}\n`;
  return `${message}\n`;
}

/**
 * An SSE comment line (ignored by clients; keeps proxies from timing the stream out).
 *
 * @example
 * formatSseComment("keep-alive"); // ": keep-alive\n\n"
 */
export function formatSseComment(text: string): string {
  return `${text
    .split(LINE_BREAK)
    .map((line) => `: ${line}`)
    .join("\n")}\n\n`;
}
