import type { ProxyReply } from "../../relay/proxy-reply.js";

/** Error bodies larger than this are not read further: what is needed of them is at the start. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

type Body = ProxyReply["body"];

/** A reply body as chunks to pull (bytes already read are one chunk). */
export function chunksOf(body: NonNullable<Body>): AsyncIterable<Uint8Array> {
  if (!(body instanceof Uint8Array)) return body;
  return (async function* () {
    yield body;
  })();
}

/**
 * The first `limit` bytes of a reply body as text, the rest cancelled: enough to read a vendor's
 * error shape without letting an upstream make the proxy buffer an arbitrary body.
 *
 * @example
 * const text = await boundedText(reply.body);
 */
export async function boundedText(body: Body, limit = MAX_ERROR_BODY_BYTES): Promise<string> {
  if (body === null) return "";
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  const chunks = body[Symbol.asyncIterator]();
  const read: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const next = await chunks.next();
      if (next.done) break;
      read.push(next.value);
      size += next.value.byteLength;
    }
  } finally {
    await chunks.return?.();
  }
  return Buffer.concat(read).toString("utf8");
}

/** A whole reply body as text (a JSON answer: the relay read it whole already when it was up to 1 MiB). */
export async function wholeText(body: Body): Promise<string> {
  if (body === null) return "";
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  const read: Uint8Array[] = [];
  for await (const chunk of body) read.push(chunk);
  return Buffer.concat(read).toString("utf8");
}

/** Stops a reply body nobody will read (its upstream request is ended). */
export async function cancelBody(body: Body): Promise<void> {
  if (body === null || body instanceof Uint8Array) return;
  await body[Symbol.asyncIterator]()
    .return?.()
    .catch(() => undefined);
}
