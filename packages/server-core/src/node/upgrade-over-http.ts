import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { RequestHandler } from "../core/pipeline/request-handler.js";
import { toIncomingRequest } from "./node-bridge.js";

/** A streamed answer to an upgrade is cut here: the socket is written once, not piped. */
const MAX_STREAMED_BYTES = 1024 * 1024;
const FLUSH_GRACE_MS = 2_000;

async function bodyBytes(body: unknown): Promise<Buffer> {
  if (body === null || body === undefined) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk);
    chunks.push(bytes);
    size += bytes.byteLength;
    if (size >= MAX_STREAMED_BYTES) break;
  }
  return Buffer.concat(chunks);
}

/**
 * Answers an upgrade request that no WebSocket surface serves through the HTTP pipeline, as the
 * plain `GET` it also is — what Node does when no `upgrade` listener exists. Routes then decide on
 * every adapter alike: the proxy's 426 on the Responses WebSocket paths (Codex falls back to HTTP
 * at once), the vendor-shaped 404 elsewhere. The answer closes the connection.
 *
 * @example
 * server.on("upgrade", (request, socket) => void answerUpgradeOverHttp(adapter.handler, request, socket));
 */
export async function answerUpgradeOverHttp(
  handler: Pick<RequestHandler, "dispatch">,
  request: IncomingMessage,
  socket: Duplex,
): Promise<void> {
  socket.on("error", () => socket.destroy());
  const outgoing = await handler.dispatch({ ...toIncomingRequest(request), body: { kind: "none" } });
  try {
    const body = request.method === "HEAD" ? Buffer.alloc(0) : await bodyBytes(outgoing.body);
    const lines = [`HTTP/1.1 ${outgoing.status} ${STATUS_CODES[outgoing.status] ?? "Unknown"}`];
    for (const [name, value] of Object.entries(outgoing.headers)) {
      // Framing is this function's to write.
      if (value === undefined || /^(content-length|transfer-encoding|connection)$/i.test(name)) continue;
      for (const item of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${item}`);
    }
    lines.push(`Content-Length: ${body.byteLength}`, "Connection: close");
    if (!socket.writable) return void socket.destroy();
    const grace = setTimeout(() => socket.destroy(), FLUSH_GRACE_MS);
    grace.unref();
    socket.end(Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), body]), () => {
      clearTimeout(grace);
      socket.destroy();
    });
  } finally {
    outgoing.done();
  }
}
