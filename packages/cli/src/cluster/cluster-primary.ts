import cluster, { type Worker } from "node:cluster";
import { createMetricsAggregator } from "./cluster-metrics.js";

/** What a worker sends the primary once its server listens. */
export interface WorkerListeningMessage {
  type: "conduit:listening";
  port: number;
}

export interface ClusterPrimaryOptions {
  workers: number;
  /** For the ready line: `Conduit listening on http://HOST:PORT (framework: NAME)`. */
  host: string;
  framework: string;
  /** A worker's own drain is bounded by this; the primary waits 5 s more before SIGKILL. */
  gracefulShutdownTimeoutMs: number;
}

/** More exits than this within RESTART_WINDOW_MS means a crash loop: stop replacing and exit 1. */
const MAX_RESTARTS = 10;
const RESTART_WINDOW_MS = 60_000;

export function isListeningMessage(message: unknown): message is WorkerListeningMessage {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "conduit:listening";
}

/**
 * The supervisor of `conduit serve --workers N` (node:cluster): forks one worker first (so a
 * bad config is reported once, by one process), then the others on the same port; prints the
 * ready line once every worker listens; replaces a worker that dies; answers a worker's metrics
 * scrape with every worker's metrics; on SIGTERM/SIGINT drains every worker and exits 0 when all
 * of them stopped cleanly (1 otherwise).
 *
 * @example
 * if (cluster.isPrimary) runClusterPrimary({ workers: 2, host: "0.0.0.0", framework: "hono", gracefulShutdownTimeoutMs: 30_000 });
 */
export function runClusterPrimary(options: ClusterPrimaryOptions): void {
  const listening = new Set<number>();
  let port: number | undefined;
  let announced = false;
  let stopping = false;
  let cleanStop = true;
  const exits: number[] = [];
  const metrics = createMetricsAggregator(liveWorkers);

  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on("message", (message: unknown) => {
      if (metrics(worker, message)) return;
      if (!isListeningMessage(message) || stopping) return;
      listening.add(worker.id);
      port ??= message.port;
      // The first worker has proved the config; the rest start together.
      if (listening.size === 1 && !announced && liveWorkers().length === 1) for (let index = 1; index < options.workers; index++) fork();
      if (!announced && listening.size >= options.workers) {
        announced = true;
        console.log(`Conduit listening on http://${options.host}:${port} (framework: ${options.framework})`);
      }
    });
    return worker;
  };

  const stopAll = (signal: NodeJS.Signals) => {
    for (const worker of liveWorkers()) worker.process.kill(signal);
  };

  const finishIfStopped = () => {
    if (liveWorkers().length === 0) process.exit(cleanStop ? 0 : 1);
  };

  cluster.on("exit", (worker, code, signal) => {
    listening.delete(worker.id);
    if (stopping) {
      if (code !== 0) cleanStop = false;
      finishIfStopped();
      return;
    }
    if (!announced) {
      // A worker failed before the server ever came up: the same config would fail again.
      stopping = true;
      cleanStop = false;
      if (signal) console.error(`Conduit failed to start: a worker was ended by ${signal}`);
      stopAll("SIGTERM");
      const exitCode = code === 2 ? 2 : 1;
      const waitForOthers = setInterval(() => {
        if (liveWorkers().length === 0) process.exit(exitCode);
      }, 50);
      waitForOthers.unref();
      if (liveWorkers().length === 0) process.exit(exitCode);
      return;
    }
    const now = Date.now();
    exits.push(now);
    while (exits.length > 0 && (exits[0] as number) < now - RESTART_WINDOW_MS) exits.shift();
    if (exits.length > MAX_RESTARTS) {
      console.error(`Workers exited ${exits.length} times within ${RESTART_WINDOW_MS / 1000} s; stopping`);
      stopping = true;
      cleanStop = false;
      stopAll("SIGTERM");
      finishIfStopped();
      return;
    }
    console.error(`Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting a replacement`);
    fork();
  });

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal} received, draining ${liveWorkers().length} workers…`);
    stopAll("SIGTERM");
    // A worker that outlives its own shutdown bound is killed; that stop is not clean.
    setTimeout(() => {
      cleanStop = false;
      stopAll("SIGKILL");
    }, options.gracefulShutdownTimeoutMs + 5_000).unref();
    finishIfStopped();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));

  fork();
}

function liveWorkers(): Worker[] {
  return Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && !worker.isDead());
}
