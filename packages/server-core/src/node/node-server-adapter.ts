import type { Server } from "node:http";
import type { Socket } from "node:net";
import { BaseServerAdapter } from "../adapter/base-adapter.js";
import type { ServerTransport } from "../core/lifecycle/server-transport.js";
import { stopListening } from "../core/lifecycle/shutdown-steps.js";
import { guardNodeServer } from "./server-guards.js";

/**
 * Connections the kernel may queue before the server accepts them (capped by the kernel's
 * `net.core.somaxconn`, 4096 on current Linux). Node's default, 511, overflows when a burst of
 * clients arrives while the event loop is busy — 5 000 streams opened within a second dropped
 * SYNs, and the clients' retransmissions (1 s, 3 s, 7 s…) delayed or reset their streams.
 */
const LISTEN_BACKLOG = 4096;

/**
 * A Conduit server on a Node `http.Server`: every Node framework (Hono through
 * `@hono/node-server`, Express, Fastify, Koa) only builds its server (`createHttpServer`);
 * this class installs the shared guards (parser errors, CONNECT, 100-continue, Host-less
 * requests answered alike everywhere), listens, and tracks the sockets the drain closes.
 * It lives in `./node` so the core's main entry never loads `node:http`.
 *
 * @example
 * class KoaServerAdapter extends NodeServerAdapter<Koa> {
 *   readonly framework = "koa" as const;
 *   protected createApp(routes: RegisteredRoute[]) { return buildKoaApp(this.handler, routes); }
 *   protected createHttpServer(app: Koa) { return createServer(app.callback()); }
 * }
 */
export abstract class NodeServerAdapter<TApp> extends BaseServerAdapter<TApp> {
  /** A Node HTTP server (not yet listening) serving the app. */
  protected abstract createHttpServer(app: TApp): Server | Promise<Server>;

  protected async listen(app: TApp): Promise<ServerTransport> {
    const server = await this.createHttpServer(app);
    guardNodeServer(server, this.handler);
    const sockets = new Set<Socket>();
    server.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    });
    const { port, host } = this.config;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (error) => this.handler.emitSafe("error", { error, timestamp: Date.now() }));
    const address = server.address();
    return {
      address: { port: typeof address === "object" && address !== null ? address.port : port, host },
      httpServer: server,
      connectionCount: () => sockets.size,
      stopListening: () => stopListening(server),
      endConnections: () => {
        for (const socket of sockets) socket.end();
      },
      destroyConnections: () => {
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        // Destroyed sockets emit `close` a tick later; they are gone for the count right now.
        sockets.clear();
      },
    };
  }
}
