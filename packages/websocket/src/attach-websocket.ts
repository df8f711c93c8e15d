import type { BaseServerAdapter, Runtime } from "@conduit-ai/server-core";
import { requestFeedOf } from "@conduit-ai/server-core/internal";
import { answerUpgradeOverHttp } from "@conduit-ai/server-core/node";
import { registerAgentHandlers } from "./agent-handlers.js";
import { messageFeedReporter } from "./message-feed.js";
import { ConduitWebSocketServer, type WebSocketServerOptions } from "./websocket-server.js";

export interface AttachWebSocketOptions extends WebSocketServerOptions {
  /** When given, the standard agent handler (`generate`, `stream`, `tool_call`) is registered. */
  runtime?: Runtime;
}

/**
 * Serves the WebSocket surface on an adapter's Node server — now if it is running, and
 * again after every restart (`started` event) — and closes its sockets with 1001 during
 * the adapter's graceful stop, after in-flight generations or the drain timeout. Each message's
 * work (with `runtime`) is a row of the adapter's live feed when one is installed. Upgrades and
 * the messages that start work spend the adapter's HTTP rate-limit budget (`rateLimit: false`
 * opts out).
 *
 * @example
 * const adapter = createAdapter(runtime, { port: 3000 });
 * const surface = attachWebSocket(adapter, { runtime, path: "/ws", auth: { strategy: "bearer", validate } });
 * await adapter.start();
 */
export function attachWebSocket(adapter: BaseServerAdapter<unknown>, options: AttachWebSocketOptions = {}): ConduitWebSocketServer {
  // One budget per client across HTTP and WebSocket: the adapter's default limiter unless told otherwise.
  const rateLimit = options.rateLimit ?? adapter.rateLimiter;
  const surface = new ConduitWebSocketServer({
    logger: adapter.handler.logger,
    trustProxy: adapter.getConfig().trustProxy,
    // Upgrades on other paths get the HTTP pipeline's answer to that GET, as without a WebSocket surface.
    foreignUpgrade: (request, socket) => answerUpgradeOverHttp(adapter.handler, request, socket),
    ...options,
    ...(rateLimit ? { rateLimit } : {}),
  });
  // Each message's work is a row of the live feed, once a console installed one on this adapter.
  if (options.runtime)
    registerAgentHandlers(
      surface,
      options.runtime,
      messageFeedReporter(() => requestFeedOf(adapter), surface.config.path),
    );
  const attachCurrent = () => {
    const server = adapter.getHttpServer();
    if (server) surface.attach(server);
  };
  attachCurrent();
  adapter.on("started", attachCurrent);
  adapter.onBeforeClose(({ drainTimeoutMs }) => surface.close({ drainTimeoutMs }));
  return surface;
}
