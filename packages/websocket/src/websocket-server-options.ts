/**
 * The options and hooks of `ConduitWebSocketServer`, apart from the class so `attachWebSocket`
 * and handler modules can name them without pulling in the server.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger, TrustProxyConfig } from "@conduit-ai/server-core";
import type { RateLimiter } from "@conduit-ai/server-core/internal";
import type { ClientMessage } from "./message-protocol.js";
import type { WebSocketConfig } from "./websocket-config.js";
import type { WebSocketConnection } from "./websocket-connection.js";

export type WebSocketMessageKind = "text" | "binary" | "ping" | "pong" | "close";

/** Handles one routed JSON message; a throw becomes an `error` message to the client. */
export type WebSocketMessageHandler = (message: ClientMessage, connection: WebSocketConnection) => Promise<void> | void;

/** Connection hooks; a hook that throws is logged, never fatal. */
export interface WebSocketConnectionHandler {
  onOpen?(connection: WebSocketConnection): void | Promise<void>;
  /** Every frame, before routing: `text`, `binary`, `ping`, `pong`. */
  onMessage?(connection: WebSocketConnection, message: { kind: WebSocketMessageKind; data: Buffer | string }): void | Promise<void>;
  onClose?(connection: WebSocketConnection, event: { kind: "close"; code: number; reason: string }): void | Promise<void>;
  onError?(connection: WebSocketConnection, error: Error): void | Promise<void>;
}

export interface WebSocketServerOptions extends WebSocketConfig {
  handlers?: Record<string, WebSocketMessageHandler>;
  connectionHandler?: WebSocketConnectionHandler;
  logger?: Logger;
  /**
   * The HTTP rate limiter whose budget the surface spends: each upgrade and each message of
   * `rateLimitedTypes` counts as one request (same store, same key as HTTP). `attachWebSocket`
   * passes the adapter's default limiter unless this is `false`.
   */
  rateLimit?: RateLimiter | false;
  /** Message types that start work and so count (default `generate`, `stream`, `tool_call`). */
  rateLimitedTypes?: string[];
  /** The server's `trustProxy`, so the budget's client address is the one HTTP uses (`attachWebSocket` passes the adapter's). */
  trustProxy?: TrustProxyConfig;
  /**
   * Answers an upgrade on another path when no other `upgrade` listener exists (default: 404).
   * `attachWebSocket` runs it through the adapter's HTTP pipeline (`answerUpgradeOverHttp`), so a
   * route decides — e.g. the proxy's 426 that sends the Codex CLI to HTTP at once.
   */
  foreignUpgrade?: (request: IncomingMessage, socket: Duplex) => Promise<void>;
}
