import { createServer, createHealthRoutes } from "@conduit-ai/server-core";
import { UsageError, parseDemoOptions } from "./cli-options.js";

/**
 * The Conduit demo server: every route group on embedded defaults (no API key, no
 * Redis). Prints one ready line, stops gracefully on SIGTERM/SIGINT.
 */
async function main(): Promise<void> {
  const options = parseDemoOptions(process.argv.slice(2), process.env);
  const server = await createServer(undefined, { framework: options.framework, config: options.server });
  server.registerRouteGroup(createHealthRoutes(server));
  await server.start();
  const address = server.address();
  const host = options.server.host ?? "0.0.0.0";
  console.log(`Conduit listening on http://${host}:${address?.port} (framework: ${options.framework})`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal} received, draining…`);
    try {
      await server.stop();
      process.exit(0);
    } catch (error) {
      console.error(`Shutdown failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  const code = (error as { code?: string }).code;
  console.error(`Conduit demo failed to start${code ? ` (${code})` : ""}: ${(error as Error).message}`);
  process.exit(1);
});
