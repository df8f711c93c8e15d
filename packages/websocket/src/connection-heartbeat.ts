/**
 * The heartbeat of one connection: pings on a timer and terminates a peer that stops answering,
 * so a half-open TCP connection does not hold a connection slot forever.
 */
import type { Logger } from "@conduit-ai/server-core";
import type { ResolvedWebSocketConfig } from "./websocket-config.js";
import type { WebSocketConnection } from "./websocket-connection.js";

/** The two timings the heartbeat reads from the resolved config. */
export type HeartbeatConfig = Pick<ResolvedWebSocketConfig, "pingInterval" | "pongTimeout">;

/** Pings every `pingInterval`; no pong within `pongTimeout` → terminate. */
export function startHeartbeat(connection: WebSocketConnection, config: HeartbeatConfig, logger: Logger): void {
  const { socket } = connection;
  let pongTimer: NodeJS.Timeout | undefined;
  const interval = setInterval(() => {
    if (pongTimer) return;
    pongTimer = setTimeout(() => {
      logger.info({ connectionId: connection.id }, "websocket terminated: no pong");
      socket.terminate();
    }, config.pongTimeout);
    pongTimer.unref();
    socket.ping();
  }, config.pingInterval);
  interval.unref();
  socket.on("pong", () => {
    clearTimeout(pongTimer);
    pongTimer = undefined;
  });
  socket.once("close", () => {
    clearInterval(interval);
    clearTimeout(pongTimer);
  });
}
