import cluster from "node:cluster";
import { resolveConfig } from "@conduit-ai/server-core";
import { within } from "@conduit-ai/server-core/internal";
import { shareMetricsWithCluster } from "../cluster/cluster-metrics.js";
import { runClusterPrimary, type WorkerListeningMessage } from "../cluster/cluster-primary.js";
import { perWorkerStateProblem } from "../cluster/shared-state-check.js";
import { takeWorkerFlags } from "../cluster/worker-flags.js";
import { SERVE_USAGE, parseServeOptions } from "../config-file.js";
import { assembleServer } from "../server-assembly.js";
import { startTelemetryIfAsked } from "../telemetry-setup.js";
import { CommandExit, UsageError } from "../usage-error.js";
import { drainOnSignals } from "./drain-on-signals.js";

export const SERVE_COMMAND_USAGE = `${SERVE_USAGE}
  --workers N|auto           run N processes (auto: one per CPU) on one port with node:cluster
  --allow-per-worker-state   run several workers without REDIS_URL, each with its own state`;

/**
 * `conduit serve` (and the demo): assembles the server from flags, environment and config file,
 * prints one ready line, drains on SIGTERM/SIGINT. Exit codes: 0 after a clean stop, 2 for a
 * usage or config error, 1 when the server fails. `--workers N` runs N such processes on one
 * port under a node:cluster primary (see `runClusterPrimary`); each worker runs this function too.
 */
export async function runServe(argv: string[], env: NodeJS.ProcessEnv = process.env, usage = SERVE_USAGE): Promise<void> {
  try {
    await serveCommand(argv, env, usage);
  } catch (error) {
    if (error instanceof CommandExit) process.exit(error.code);
    throw error;
  }
}

/** `runServe` as `conduit` runs it: a refused or failed start throws `CommandExit` once it printed why, and main exits. */
export async function serveCommand(argv: string[], env: NodeJS.ProcessEnv, usage = SERVE_USAGE): Promise<void> {
  try {
    const { workers, allowPerWorkerState, rest } = takeWorkerFlags(argv);
    const options = parseServeOptions(rest, env, usage);
    const host = options.server.host ?? "0.0.0.0";
    if (workers !== undefined && cluster.isPrimary) {
      const problem = allowPerWorkerState ? undefined : perWorkerStateProblem(workers, env, options.file);
      if (problem) throw new UsageError(problem);
      const { gracefulShutdownTimeoutMs } = resolveConfig(options.server).shutdown;
      runClusterPrimary({ workers, host, framework: options.framework, gracefulShutdownTimeoutMs });
      return;
    }
    // Before the server exists, so the first request is traced; each worker traces its own requests.
    const telemetry = await startTelemetryIfAsked(env, options.file.telemetry, (message) => console.error(message));
    const { server, close } = await assembleServer(options, env);
    // One scrape of the shared port reports every worker.
    if (cluster.isWorker) shareMetricsWithCluster(server);
    await server.start();
    const port = server.address()?.port as number;
    // A worker tells its primary, which prints the one ready line when all of them listen.
    if (cluster.isWorker) process.send?.({ type: "conduit:listening", port } satisfies WorkerListeningMessage);
    else console.log(`Conduit listening on http://${host}:${port} (framework: ${options.framework})`);

    drainOnSignals({
      drain: async () => {
        const deadline = Date.now() + server.getConfig().shutdown.gracefulShutdownTimeoutMs;
        // Bounded by gracefulShutdownTimeoutMs; its timers keep the process alive until it is done.
        await server.stop();
        // The runtime (MCP clients, Redis) gets what is left of the grace period, at least 1 s.
        if ((await within(close(), Math.max(1_000, deadline - Date.now()))) === "timeout") {
          throw new Error("the runtime did not close in time");
        }
        // The last spans (those of the drained requests) are sent before the process exits.
        await within(telemetry?.shutdown() ?? Promise.resolve(), Math.max(1_000, deadline - Date.now()));
      },
      stopped: "Conduit stopped (runtime closed)",
      // A worker whose primary is gone drains instead of serving unsupervised.
      alsoOn: cluster.isWorker ? ["disconnect"] : [],
    });
  } catch (error) {
    exitOnStartFailure(error);
  }
}

function exitOnStartFailure(error: unknown): never {
  if (error instanceof UsageError) {
    // One line naming the problem; the usage itself only when it is what was asked for.
    const [first, ...more] = error.message.split("\n");
    console.error(more.length > 0 && !first?.startsWith("Usage:") ? `${first} (see --help)` : error.message);
    throw new CommandExit(2);
  }
  const code = (error as { code?: string }).code;
  console.error(`Conduit failed to start${code ? ` (${code})` : ""}: ${String((error as Error).message).split("\n")[0]}`);
  throw new CommandExit(1);
}
