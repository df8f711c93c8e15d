import type { Server } from "node:http";

/**
 * What a listening server gives the lifecycle: its address, its connections and the steps the
 * drain takes on them. `NodeServerAdapter` (`@conduit-ai/server-core/node`) builds one around a
 * Node `http.Server`; a mounted or web-standard server has none (the host owns the sockets).
 */
export interface ServerTransport {
  readonly address: { port: number; host: string };
  /** The Node server, for surfaces that attach to it (WebSocket upgrades). */
  readonly httpServer?: Server;
  /** Open connections right now (idle keep-alive ones included). */
  connectionCount(): number;
  /** Stops accepting connections; resolves once the server closed. Called once per stop. */
  stopListening(): Promise<void>;
  /** Ends every connection gently, so bytes still buffered reach the client. */
  endConnections(): void;
  /** Destroys every connection still open. */
  destroyConnections(): void;
}
