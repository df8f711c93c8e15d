import type { ConduitConfigFile } from "../config-file.js";
import { redisTopologyOf } from "../redis-setup.js";

/**
 * Why `workers` processes would not behave as one server, or undefined when they would: above
 * one worker every shared state must be in Redis (`REDIS_URL`, `REDIS_CLUSTER_NODES`,
 * `REDIS_SENTINELS` or the file's `redis` key), and the config file must not pin
 * a store to process memory.
 *
 * @example
 * perWorkerStateProblem(2, {}, {}); // "--workers 2 needs REDIS_URL: …"
 */
export function perWorkerStateProblem(workers: number, env: NodeJS.ProcessEnv, file: ConduitConfigFile): string | undefined {
  if (workers <= 1) return undefined;
  const optOut = "(pass --allow-per-worker-state to accept that)";
  if (redisTopologyOf(env, file.redis) === undefined) {
    return `--workers ${workers} needs REDIS_URL: without Redis each worker keeps its own rate limits, sessions, conversation memory and usage ledger ${optOut}`;
  }
  const sessions = (file.auth as { sessions?: { store?: unknown } } | undefined)?.sessions;
  if (sessions?.store === "memory") {
    return `--workers ${workers}: auth.sessions.store "memory" keeps sessions per worker; use "redis" or leave it out ${optOut}`;
  }
  const proxy = file.proxy as { enabled?: unknown; store?: unknown } | undefined;
  if (proxy?.enabled === true && proxy.store !== "redis") {
    return `--workers ${workers}: the proxy's account pool is in process memory; set proxy.store to "redis" ${optOut}`;
  }
  return undefined;
}
