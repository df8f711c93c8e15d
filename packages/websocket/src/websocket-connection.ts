import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { ServerMessage } from "./message-protocol.js";
import type { WebSocketUser } from "./websocket-config.js";

/** Bytes buffered in the socket above which a sender waits for the flush (backpressure). */
const HIGH_WATER_MARK = 64 * 1024;

/**
 * One accepted socket: its user, a `send` that honors backpressure, and the operations
 * (generations, streams) in flight, each abortable by its message id (`cancel`) and all
 * aborted when the socket closes.
 */
export class WebSocketConnection {
  private readonly operations = new Map<string, AbortController>();
  private readonly closeController = new AbortController();

  constructor(
    readonly id: string,
    readonly socket: WebSocket,
    readonly request: IncomingMessage,
    readonly user: WebSocketUser | undefined,
  ) {}

  /** Aborted when the socket closes. */
  get signal(): AbortSignal {
    return this.closeController.signal;
  }

  get isOpen(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** Sends a message; resolves at once unless the socket's buffer is full, then once it flushed. Never rejects. */
  send(message: ServerMessage): Promise<void> {
    if (!this.isOpen) return Promise.resolve();
    return new Promise((resolve) => {
      const waitForFlush = this.socket.bufferedAmount > HIGH_WATER_MARK;
      this.socket.send(JSON.stringify(message), () => {
        if (waitForFlush) resolve();
      });
      if (!waitForFlush) resolve();
    });
  }

  /** An abort controller for the operation `id`, aborted by `cancel(id)` or by the close. */
  startOperation(id: string | undefined): { signal: AbortSignal; end: () => void } {
    const controller = new AbortController();
    const key = id ?? `anonymous-${Math.random()}`;
    this.operations.get(key)?.abort();
    this.operations.set(key, controller);
    const onClose = () => controller.abort(this.signal.reason);
    this.signal.addEventListener("abort", onClose, { once: true });
    return {
      signal: controller.signal,
      end: () => {
        this.signal.removeEventListener("abort", onClose);
        if (this.operations.get(key) === controller) this.operations.delete(key);
      },
    };
  }

  /** Aborts the operation started by the message `id`; false when none is running. */
  cancel(id: string): boolean {
    const controller = this.operations.get(id);
    if (!controller) return false;
    controller.abort(new Error("Cancelled by the client"));
    this.operations.delete(id);
    return true;
  }

  /** @internal called by the server when the socket closed. */
  closed(reason: string): void {
    if (!this.closeController.signal.aborted) this.closeController.abort(new Error(reason));
  }
}
