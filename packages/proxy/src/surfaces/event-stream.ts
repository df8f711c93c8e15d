import { formatSseFrame } from "@conduit-ai/server-core/web";

/** The headers of every event stream the proxy translates (chat completions, Responses, Messages). */
export const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

/**
 * One SSE frame whose `data` is `value` as JSON, framed by server-core's one SSE framer: with an
 * `event` name it is the Responses and Messages APIs' `event: <type>` + `data:` pair, without one
 * OpenAI's chat completions `data:` line.
 *
 * @example
 * jsonEventFrame({ id: "chatcmpl-1", choices: [] }); // 'data: {"id":"chatcmpl-1","choices":[]}\n\n'
 * jsonEventFrame({ type: "message_stop" }, "message_stop"); // 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
 */
export function jsonEventFrame(value: unknown, event?: string): string {
  const data = JSON.stringify(value);
  return formatSseFrame(event === undefined ? { data } : { event, data });
}
