import type { MessageChannel } from "./message-channel.js";

/**
 * A channel as an SSE body (`event: message` frames, MCP's Streamable HTTP framing) the core
 * streams with backpressure — the next message is taken only when the socket has sent the last —
 * with a `: keep-alive` comment after `keepAliveMs` of silence, ending when the channel closes or
 * `signal` aborts (the client left, the server drains).
 *
 * @example
 * return rawResponse(sseBody(channel, 15_000, ctx.abortSignal), { headers: SSE_HEADERS });
 */
export async function* sseBody(channel: MessageChannel, keepAliveMs: number, signal: AbortSignal): AsyncGenerator<string> {
  const onAbort = () => channel.close();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (!signal.aborted) {
      const message = await channel.next(keepAliveMs > 0 ? keepAliveMs : 2_147_483_647);
      if (message === undefined) return;
      yield message === "idle" ? ": keep-alive\n\n" : `event: message\ndata: ${message}\n\n`;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    channel.close();
  }
}

/** The headers of every SSE answer of the endpoint. */
export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
} as const;
