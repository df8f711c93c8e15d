/** The fields of one Server-Sent Events message. */
export interface SseFrame {
  /** The event name (`event:` line); omitted, the client dispatches a plain `message`. */
  event?: string;
  /** The event id (`id:` line) the client sends back as `Last-Event-ID`. */
  id?: string;
  /** Reconnection delay the client should use, in milliseconds (sent only when a non-negative integer). */
  retry?: number;
  /**
   * The payload; each line of a multi-line value becomes its own `data:` line. Omitted, the frame
   * carries fields only (a `retry:` before the first event) and the client dispatches nothing.
   */
  data?: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** A field value without line breaks (checked first: nearly every value has none). */
function singleLine(value: string): string {
  return value.includes("\n") || value.includes("\r") ? value.replace(/[\r\n]/g, "") : value;
}

/**
 * Frames one SSE message: the one SSE framer every Conduit stream uses (the event-stream
 * encoding and the proxy's OpenAI, Responses and Anthropic streams). `event` and `id` lose any
 * CR/LF (and `id` any NUL, which makes clients drop the id), so no field can inject another
 * event; the fields are written in the order event, id, retry, data.
 *
 * @example
 * formatSseFrame({ data: JSON.stringify({ ok: true }) }); // 'data: {"ok":true}\n\n'
 * formatSseFrame({ event: "response.created", data: "{}" }); // "event: response.created\ndata: {}\n\n"
 * formatSseFrame({ event: "note", id: "1", retry: 3000, data: "a\nb" }); // "event: note\nid: 1\nretry: 3000\ndata: a\ndata: b\n\n"
 * formatSseFrame({ retry: 3000 }); // "retry: 3000\n\n"
 */
export function formatSseFrame(frame: SseFrame): string {
  let message = frame.event === undefined ? "" : `event: ${singleLine(frame.event)}\n`;
  if (frame.id !== undefined) {
    const id = singleLine(frame.id);
    message += `id: ${id.includes("\0") ? id.replace(/\0/g, "") : id}\n`;
  }
  if (frame.retry !== undefined && Number.isInteger(frame.retry) && frame.retry >= 0) message += `retry: ${frame.retry}\n`;
  const data = frame.data;
  if (data === undefined) return `${message}\n`;
  // JSON payloads (nearly all) have no raw line break: one `data:` line without a split.
  if (!data.includes("\n") && !data.includes("\r")) return `${message}data: ${data}\n\n`;
  for (const line of data.split(LINE_BREAK)) message += `data: ${line}\n`;
  return `${message}\n`;
}

/**
 * An SSE comment: every line prefixed `: `, so clients ignore it whatever it holds (keep-alives
 * that stop proxies from timing an idle stream out).
 *
 * @example
 * formatSseComment("keep-alive"); // ": keep-alive\n\n"
 */
export function formatSseComment(text: string): string {
  if (!text.includes("\n") && !text.includes("\r")) return `: ${text}\n\n`;
  return `${text
    .split(LINE_BREAK)
    .map((line) => `: ${line}`)
    .join("\n")}\n\n`;
}
