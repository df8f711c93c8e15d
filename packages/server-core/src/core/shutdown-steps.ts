import type { Server } from "node:http";

/**
 * `work`, or "timeout" after `ms`. The timer is ref'd and cleared: a stop in progress keeps the
 * process alive until it completes (an unref'd one let a process with a request stuck in flight
 * exit half-stopped, skipping `runtime.close()`), and a finished stop leaves no timer behind.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

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
