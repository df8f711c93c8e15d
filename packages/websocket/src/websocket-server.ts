import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import {
  AuthenticationError,
  type Logger,
  RouteNotFoundError,
  WebSocketConnectionError,
  WebSocketError,
  serviceUnavailable,
  silentLogger,
  wrapError,
} from "@conduit-ai/server-core";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { startHeartbeat } from "./connection-heartbeat.js";
import { parseClientMessage } from "./message-protocol.js";
import { DEFAULT_RATE_LIMITED_TYPES, RateLimitGate } from "./rate-limit-gate.js";
import { authenticateUpgrade } from "./upgrade-auth.js";
import { handshakeError, refuse } from "./upgrade-refusal.js";
import { type ResolvedWebSocketConfig, type WebSocketUser, resolveWebSocketConfig } from "./websocket-config.js";
import { WebSocketConnection } from "./websocket-connection.js";
import type {
  WebSocketConnectionHandler,
  WebSocketMessageHandler,
  WebSocketMessageKind,
  WebSocketServerOptions,
} from "./websocket-server-options.js";

export type { WebSocketConnectionHandler, WebSocketMessageHandler, WebSocketMessageKind, WebSocketServerOptions };

/**
 * The WebSocket surface (on `ws`), independent of the HTTP framework: attach it to Node
 * servers, register handlers per message `type`, close gracefully. `attachWebSocket`
 * wires it to an adapter's lifecycle.
 *
 * @example
 * const surface = new ConduitWebSocketServer({ path: "/ws" });
 * surface.on("echo", (message, connection) => connection.send({ type: "result", id: message.id ?? null, payload: message.payload }));
 * surface.attach(httpServer);
 */
export class ConduitWebSocketServer {
  readonly config: ResolvedWebSocketConfig;
  readonly connections = new Set<WebSocketConnection>();
  private readonly handlers = new Map<string, WebSocketMessageHandler>();
  private readonly wss: WebSocketServer;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly attached = new Map<Server, (request: IncomingMessage, socket: Duplex, head: Buffer) => void>();
  private pendingUpgrades = 0;
  private closing = false;
  private readonly logger: Logger;
  private readonly connectionHandler: WebSocketConnectionHandler;
  private readonly rateLimit: RateLimitGate | undefined;
  private readonly foreignUpgrade: WebSocketServerOptions["foreignUpgrade"];

  constructor(options: WebSocketServerOptions = {}) {
    this.config = resolveWebSocketConfig(options);
    if (options.rateLimit)
      this.rateLimit = new RateLimitGate(
        options.rateLimit,
        new Set(options.rateLimitedTypes ?? DEFAULT_RATE_LIMITED_TYPES),
        options.trustProxy,
      );
    this.logger = options.logger ?? silentLogger;
    this.foreignUpgrade = options.foreignUpgrade;
    this.connectionHandler = options.connectionHandler ?? {};
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.config.maxMessageSize, clientTracking: false });
    this.wss.on("error", (error) =>
      this.logger.warn({ err: new WebSocketError("WebSocket server error", { cause: error }) }, "websocket server error"),
    );
    // Handshake mistakes (bad key, version, Upgrade header) are answered in the envelope, not ws' plain text.
    this.wss.on("wsClientError", (error: Error, socket: Duplex) => refuse(socket, handshakeError(error.message)));
    for (const [type, handler] of Object.entries(options.handlers ?? {})) this.on(type, handler);
    this.on("cancel", (message, connection) => {
      if (message.id) connection.cancel(message.id);
    });
  }

  /** Routes messages of `type` to `handler` (replacing an earlier one). */
  on(type: string, handler: WebSocketMessageHandler): this {
    this.handlers.set(type, handler);
    return this;
  }

  /** Serves upgrades on `server` (idempotent); other paths get 404 when no one else handles upgrades. */
  attach(server: Server): void {
    if (this.attached.has(server)) return;
    const listener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.handleUpgrade(server, request, socket, head);
    this.attached.set(server, listener);
    server.on("upgrade", listener);
    server.once("close", () => this.detach(server));
    this.closing = false;
  }

  detach(server: Server): void {
    const listener = this.attached.get(server);
    if (listener) server.off("upgrade", listener);
    this.attached.delete(server);
  }

  private async handleUpgrade(server: Server, request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    const path = (request.url ?? "/").split("?")[0];
    if (path !== this.config.path) {
      if (server.listenerCount("upgrade") !== 1) return;
      if (!this.foreignUpgrade) return refuse(socket, new RouteNotFoundError("GET", path ?? "/"));
      try {
        await this.foreignUpgrade(request, socket);
      } catch (error) {
        this.logger.warn({ err: error }, "websocket: answering an upgrade on another path failed");
        refuse(socket, new RouteNotFoundError("GET", path ?? "/"));
      }
      return;
    }
    if (this.closing) return refuse(socket, serviceUnavailable());
    if (this.connections.size + this.pendingUpgrades >= this.config.maxConnections) {
      this.logger.warn({ maxConnections: this.config.maxConnections }, "websocket connection refused: limit reached");
      return refuse(socket, serviceUnavailable("WebSocket connection limit reached"));
    }
    this.pendingUpgrades++;
    try {
      // Counted before authentication, as on HTTP: the limit also bounds credential guessing.
      const gate = await this.rateLimit?.upgrade(request);
      if (gate && !gate.allowed) return refuse(socket, gate.error, gate.headers);
      const auth = await authenticateUpgrade(request, this.config.auth);
      if (!auth.ok) {
        if (auth.unavailable) return refuse(socket, auth.unavailable);
        return refuse(socket, new AuthenticationError(auth.reason), { "WWW-Authenticate": "Bearer" });
      }
      if (socket.destroyed || this.closing) return refuse(socket, serviceUnavailable());
      this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, request, auth.user));
    } catch (error) {
      const failure = new WebSocketConnectionError("WebSocket connection failed", { cause: error });
      this.logger.warn({ err: error, code: failure.code }, "websocket upgrade failed");
      refuse(socket, failure);
    } finally {
      this.pendingUpgrades--;
    }
  }

  private accept(socket: WebSocket, request: IncomingMessage, user: WebSocketUser | undefined): void {
    const connection = new WebSocketConnection(`ws-${randomUUID()}`, socket, request, user);
    this.connections.add(connection);
    startHeartbeat(connection, this.config, this.logger);
    socket.on("message", (data: RawData, isBinary: boolean) => this.track(this.receive(connection, data, isBinary)));
    socket.on("ping", (data: Buffer) => void this.hook(connection, "onMessage", { kind: "ping", data }));
    socket.on("pong", (data: Buffer) => void this.hook(connection, "onMessage", { kind: "pong", data }));
    // Protocol violations, oversized messages, socket failures: `ws` closes the socket; the hook hears WEBSOCKET_ERROR.
    socket.on("error", (error: Error) => {
      const failure = new WebSocketError(`WebSocket error: ${error.message}`, { cause: error });
      this.logger.info({ connectionId: connection.id, code: failure.code, reason: error.message }, "websocket error");
      void this.hook(connection, "onError", failure);
    });
    socket.once("close", (code: number, reason: Buffer) => {
      this.connections.delete(connection);
      connection.closed(`Socket closed (${code})`);
      void this.hook(connection, "onClose", { kind: "close", code, reason: reason.toString("utf8") });
    });
    void connection.send({
      type: "connected",
      id: connection.id,
      payload: { connectionId: connection.id, ...(user ? { userId: user.id } : {}) },
    });
    void this.hook(connection, "onOpen");
  }

  private async receive(connection: WebSocketConnection, data: RawData, isBinary: boolean): Promise<void> {
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    await this.hook(connection, "onMessage", { kind: isBinary ? "binary" : "text", data: isBinary ? buffer : buffer.toString("utf8") });
    if (isBinary) {
      await connection.send({
        type: "error",
        id: null,
        payload: { code: "VALIDATION_ERROR", message: "Binary messages are not routed; send JSON text" },
      });
      return;
    }
    const parsed = parseClientMessage(buffer.toString("utf8"));
    if (!parsed.ok) {
      await connection.send({ type: "error", id: parsed.id, payload: { code: parsed.code, message: parsed.message } });
      return;
    }
    const message = parsed.message;
    const handler = this.handlers.get(message.type);
    if (!handler) {
      await connection.send({
        type: "error",
        id: message.id ?? null,
        payload: { code: "UNKNOWN_MESSAGE_TYPE", message: `Unknown message type: ${message.type}` },
      });
      return;
    }
    if (this.rateLimit?.counts(message.type)) {
      const gate = await this.rateLimit.message(connection.request, connection.user);
      if (!gate.allowed) {
        const { code, message: text, details, retryAfterMs } = gate.error;
        await connection.send({
          type: "error",
          id: message.id ?? null,
          payload: {
            code,
            message: text,
            ...(retryAfterMs === undefined ? {} : { retryAfter: Math.ceil(retryAfterMs / 1000) }),
            ...(details === undefined ? {} : { details }),
          },
        });
        return;
      }
    }
    try {
      await handler(message, connection);
    } catch (error) {
      const wrapped = wrapError(error);
      if (wrapped.statusCode >= 500)
        this.logger.error({ err: error, type: message.type, connectionId: connection.id }, "websocket handler failed");
      await connection.send({
        type: "error",
        id: message.id ?? null,
        payload: { code: wrapped.code, message: wrapped.message, ...(wrapped.details === undefined ? {} : { details: wrapped.details }) },
      });
    }
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error) => this.logger.error({ err: error }, "websocket message failed"));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private async hook<K extends keyof WebSocketConnectionHandler>(
    connection: WebSocketConnection,
    name: K,
    ...args: Parameters<NonNullable<WebSocketConnectionHandler[K]>> extends [WebSocketConnection, ...infer Rest] ? Rest : never
  ): Promise<void> {
    const hook = this.connectionHandler[name] as ((connection: WebSocketConnection, ...rest: unknown[]) => unknown) | undefined;
    if (!hook) return;
    try {
      await hook.call(this.connectionHandler, connection, ...args);
    } catch (error) {
      this.logger.warn({ err: error, hook: name, connectionId: connection.id }, "websocket hook failed");
    }
  }

  /**
   * Graceful close: refuse new upgrades, let in-flight messages finish (at most
   * `drainTimeoutMs`, then abort them), close every socket with 1001 and wait briefly for
   * the closing handshakes before terminating the rest.
   */
  async close(options: { drainTimeoutMs?: number; code?: number } = {}): Promise<void> {
    this.closing = true;
    const drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
    await within(Promise.allSettled([...this.inFlight]), drainTimeoutMs);
    const open = [...this.connections];
    const closed = Promise.all(
      open.map(
        (connection) =>
          new Promise<void>((resolve) => {
            if (connection.socket.readyState === connection.socket.CLOSED) return resolve();
            connection.socket.once("close", () => resolve());
          }),
      ),
    );
    for (const connection of open) {
      connection.closed("Server shutting down");
      connection.socket.close(options.code ?? 1001, "Server shutting down");
    }
    await within(closed, 1000);
    for (const connection of this.connections) connection.socket.terminate();
  }
}

/** `work` or nothing after `ms`; the timer is ref'd (a close in progress keeps the process alive) and cleared. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
