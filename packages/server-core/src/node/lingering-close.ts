import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { LingerOptions } from "../core/pipeline/request-handler.js";

/**
 * Lingering close (as Apache and nginx do it) for an answer that closes the connection while
 * the client is still sending its body — a 413 above all. Node would end such an answer with
 * `socket.destroySoon()`: once the answer is flushed the socket is destroyed, the client's next
 * write meets a reset, and `fetch` reports `EPIPE` instead of the 413 it was sent.
 *
 * Instead, once Node closes: half-close (FIN after the answer), keep reading and discarding the
 * request body, and destroy the socket when the client closes its side, when `bytes` were
 * discarded, or after `ms`. Does nothing for a request already read to its end.
 *
 * @example
 * if (outgoing.linger) lingerBeforeClose(response, outgoing.linger);
 * response.end(body);
 */
export function lingerBeforeClose(response: ServerResponse, options: LingerOptions): void {
  const request = response.req;
  const socket = response.socket as (Socket & { destroySoon?: () => void }) | null;
  if (!request || !socket || request.complete || socket.destroyed) return;
  // Node's server calls destroySoon() once the `Connection: close` answer is finished; this own property shadows it.
  socket.destroySoon = () => {
    let discarded = 0;
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(close, options.ms);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    // The client read the answer and hung up.
    socket.once("end", close);
    request.on("data", (chunk: Buffer) => {
      discarded += chunk.byteLength;
      if (discarded > options.bytes) close();
    });
    request.on("error", close);
    request.resume();
    if (socket.writable) socket.end();
  };
}
