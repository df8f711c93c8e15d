import type { Server } from "node:http";

/**
 * Stops accepting connections but keeps idle keep-alive sockets open: `server.close()` would
 * end them at once (Node ≥ 19), so a request a client sends on one during the drain would get
 * no answer instead of the 503 + `Connection: close` that tells it to go elsewhere.
 */
export function stopListening(server: Server): Promise<void> {
  const closeIdleConnections = server.closeIdleConnections;
  server.closeIdleConnections = () => undefined;
  try {
    return new Promise<void>((resolve) => server.close(() => resolve()));
  } finally {
    server.closeIdleConnections = closeIdleConnections;
  }
}
