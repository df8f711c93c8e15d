/**
 * How an upgrade is turned down: an HTTP answer in the JSON error envelope written on the raw
 * socket, flushed before the socket is destroyed. Kept apart from the server so every refusal
 * (path, limits, auth, handshake) goes through one writer.
 */
import type { Duplex } from "node:stream";
import { ErrorCode, ServerAdapterError } from "@conduit-ai/server-core";
import { rawErrorResponse } from "@conduit-ai/server-core/node";

const REFUSAL_FLUSH_GRACE_MS = 1_000;

/** Refuses an upgrade with the JSON error envelope, like every other answer of the server. */
export function refuse(socket: Duplex, error: ServerAdapterError, headers?: Record<string, string>): void {
  if (!socket.writable) return void socket.destroy();
  // Destroying right after end() can drop the unflushed answer (the client then sees a reset, not
  // the envelope): close once it is flushed, or after a grace period for a client that never reads.
  const grace = setTimeout(() => socket.destroy(), REFUSAL_FLUSH_GRACE_MS);
  grace.unref();
  socket.end(rawErrorResponse(error, headers), () => {
    clearTimeout(grace);
    socket.destroy();
  });
}

/** A handshake the client got wrong (`ws` names what): 400 `WEBSOCKET_CONNECTION_FAILED` (405 for a method other than GET). */
export function handshakeError(message: string): ServerAdapterError {
  return new ServerAdapterError(`WebSocket handshake failed: ${message}`, {
    code: ErrorCode.WEBSOCKET_CONNECTION_FAILED,
    statusCode: /method/i.test(message) ? 405 : 400,
    category: "WEBSOCKET",
    severity: "LOW",
  });
}
