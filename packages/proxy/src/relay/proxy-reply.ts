import { type RawResponse, rawResponse } from "@conduit-ai/server-core";
import type { UsageScanner } from "./body-tap.js";

/** An answer of the proxy before it becomes a route result or a WHATWG `Response`. */
export interface ProxyReply {
  status: number;
  headers: Record<string, string | string[]>;
  /** Bytes, or a stream pulled chunk by chunk (never buffered). */
  body: Uint8Array | AsyncIterable<Uint8Array> | null;
  /**
   * `body` (bytes) as the relay already parsed it to read its usage; `value` is undefined when
   * it was no JSON. Read only: whoever translates the answer skips a second `JSON.parse`.
   */
  parsedBody?: { value: unknown };
  /**
   * A streamed body's usage reader handed to whoever parses its events anyway, before reading it
   * (see `UsageScanner.takeEvents`): each event's data, parsed, and its text go to the function
   * it returns. Whoever passes on a body of its own leaves it behind.
   */
  usageEvents?: UsageScanner["takeEvents"];
}

/** The reply as a WHATWG `Response` (the `SendMessages` contract); the stream stays pull-based. */
export function replyToResponse(reply: ProxyReply): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(reply.headers)) {
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const source = reply.body;
  if (source === null || source instanceof Uint8Array)
    return new Response(source as Uint8Array<ArrayBuffer> | null, { status: reply.status, headers });
  const iterator = source[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, { status: reply.status, headers });
}

/** The reply as a route's raw result (status, headers and body as they are; a stream stays pulled). */
export function replyToRouteResult(reply: ProxyReply): RawResponse {
  return rawResponse(reply.body, { status: reply.status, headers: reply.headers });
}
