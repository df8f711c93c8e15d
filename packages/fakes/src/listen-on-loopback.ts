import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Listens on an ephemeral loopback port and returns the base URL and a `close()` that ends
 * kept-alive connections too (a fake upstream must never keep a test run open).
 *
 * @example
 * const { url, close } = await listenOnLoopback(createServer(handler));
 */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  // A deep backlog: the bench opens thousands of streams against one fake at once.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 8192 }, resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}`, close };
}
