import { SERVE_USAGE, parseServeOptions } from "../config-file.js";
import { assembleServer } from "../server-assembly.js";
import { UsageError } from "../usage-error.js";

/**
 * `conduit serve` (and the demo): assembles the server from flags, environment and config file,
 * prints one ready line, drains on SIGTERM/SIGINT. Exit codes: 0 after a clean stop, 2 for a
 * usage or config error, 1 when the server fails.
 */
export async function runServe(argv: string[], env: NodeJS.ProcessEnv = process.env, usage = SERVE_USAGE): Promise<void> {
  try {
    const options = parseServeOptions(argv, env, usage);
    const { server, close } = await assembleServer(options);
    await server.start();
    const host = options.server.host ?? "0.0.0.0";
    console.log(`Conduit listening on http://${host}:${server.address()?.port} (framework: ${options.framework})`);

    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      console.error(`${signal} received, draining…`);
      const deadline = Date.now() + server.getConfig().shutdown.gracefulShutdownTimeoutMs;
      try {
        // Bounded by gracefulShutdownTimeoutMs; its timers keep the process alive until it is done.
        await server.stop();
        // The runtime (MCP clients, Redis) gets what is left of the grace period, at least 1 s.
        if ((await within(close(), Math.max(1_000, deadline - Date.now()))) === "timeout") {
          console.error("Shutdown: the runtime did not close in time");
          process.exit(1);
        }
        console.error("Conduit stopped (runtime closed)");
        process.exit(0);
      } catch (error) {
        console.error(`Shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      }
    };
    process.on("SIGTERM", () => void shutdown("SIGTERM"));
    process.on("SIGINT", () => void shutdown("SIGINT"));
  } catch (error) {
    exitOnStartFailure(error);
  }
}

function exitOnStartFailure(error: unknown): never {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  const code = (error as { code?: string }).code;
  console.error(`Conduit failed to start${code ? ` (${code})` : ""}: ${(error as Error).message}`);
  process.exit(1);
}

async function within<T>(work: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
