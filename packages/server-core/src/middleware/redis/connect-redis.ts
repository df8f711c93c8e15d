import type { Logger } from "../../core/lifecycle/logger.js";
import { loadOptionalDependency } from "../../core/lifecycle/optional-dependency.js";
import { FAIL_FAST_REDIS_OPTIONS, type RedisEvalClient } from "../redis-client.js";
import { type RedisTopology, describeRedisTopology } from "./redis-topology.js";

/**
 * What every Conduit package needs of a Redis client, typed structurally so server-core never
 * imports `ioredis` at runtime: an ioredis `Redis` (one server or sentinel) or `Cluster`.
 * Packages that use more of ioredis' API name it as the type parameter of `createRedisClient`.
 */
export interface RedisClient extends RedisEvalClient {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

export interface RedisClientOptions {
  /** What needs Redis, for the `MissingDependencyError` when ioredis is not installed. */
  feature: string;
  /** Where `ioredis` is resolved from (`import.meta.url` of the package declaring it); default server-core. */
  from?: string;
  /** Warned at most once per 10 s while Redis is unreachable; without it errors are swallowed (the stores report them as 503). */
  logger?: Pick<Logger, "warn">;
}

/** How often an unreachable Redis is logged: the client retries every ≤ 2 s, a line per retry would flood the log. */
const WARN_EVERY_MS = 10_000;

type IoRedis = typeof import("ioredis");

function tlsOptions(topology: RedisTopology): { tls?: object } {
  return topology.tls ? { tls: {} } : {};
}

function credentials(topology: RedisTopology): { username?: string; password?: string } {
  return {
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
  };
}

/**
 * The one Redis client factory of every Conduit package, for the three topologies, with one
 * policy:
 *
 * - **Fail fast.** No offline queue, no resend after a dropped connection, a 1 s command
 *   timeout (`FAIL_FAST_REDIS_OPTIONS`): a command that cannot be served fails, and the store
 *   answers 503 `STORE_UNAVAILABLE`; `storeCall` caps every store operation at 1 s as well. A
 *   cluster client retries a command whose node connection closed at most twice, 100 ms apart,
 *   and fails a `CLUSTERDOWN` at once, so during a failover requests get their 503 in well under
 *   the 1 s instead of all waiting it out. Waiting for a connection is bounded too
 *   (`whenConnected`: the first connection ≤ 1 s, a reconnection not at all).
 * - **Automatic recovery.** Reconnection is never given up (one server and sentinel: ioredis'
 *   default backoff up to 2 s, asking the sentinels for the current primary each time; cluster:
 *   the slot map is refreshed after a `MOVED` or a lost node, and every second).
 * - **One error-listener policy.** One `error` listener (an unhandled one would end the
 *   process): a warning at most every 10 s through `options.logger`, or nothing.
 *
 * `ioredis` is an optional dependency loaded here on first use; absent, a
 * `MissingDependencyError` names the install line. Commands are refused until the first
 * `ready` (the stores wait for it: see `whenConnected`); `connectRedis` also waits, bounded.
 *
 * @example
 * const topology = redisTopologyFrom(process.env);
 * const redis = topology && createRedisClient<Redis | Cluster>(topology, { feature: "memory", from: import.meta.url, logger });
 */
export function createRedisClient<Client = RedisClient>(topology: RedisTopology, options: RedisClientOptions): Client {
  const ioredis = loadOptionalDependency<IoRedis>("ioredis", { feature: options.feature, from: options.from ?? import.meta.url });
  const client = build(ioredis, topology);
  listenForErrors(client, topology, options.logger);
  return client as Client;
}

function build(ioredis: IoRedis, topology: RedisTopology): RedisClient {
  const common = { ...FAIL_FAST_REDIS_OPTIONS, ...credentials(topology), ...tlsOptions(topology) };
  if (topology.form === "url") return new ioredis.Redis(topology.url, common) as unknown as RedisClient;
  if (topology.form === "sentinel") {
    return new ioredis.Redis({
      ...common,
      sentinels: topology.sentinels,
      name: topology.name,
      ...(topology.sentinelUsername ? { sentinelUsername: topology.sentinelUsername } : {}),
      ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
      ...(topology.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      // A sentinel that does not answer is skipped after this long, not waited out.
      sentinelCommandTimeout: 500,
      // The primary moved (a failover): reconnect to the new one at once.
      failoverDetector: true,
    }) as unknown as RedisClient;
  }
  const { enableOfflineQueue, ...nodeOptions } = common;
  return new ioredis.Cluster(topology.nodes, {
    enableOfflineQueue,
    redisOptions: nodeOptions,
    // Never give up on the cluster: recovery without a restart.
    clusterRetryStrategy: (times: number) => Math.min(100 + times * 100, 2_000),
    // A closed connection is retried after 100 ms, at most twice (3 redirections): enough for a
    // node connection still being opened (a fresh client's, or a new primary's), not the 1 s
    // storeCall deadline — while a primary is dead every request would otherwise be held that
    // long for the same 503, piling up on a machine already busy with the switch. A cluster
    // that says CLUSTERDOWN fails at once. A MOVED (the promotion done) is followed at once, and
    // the slot map is refreshed every second to find the new primary.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 0,
    retryDelayOnTryAgain: 200,
    maxRedirections: 3,
    slotsRefreshTimeout: 1_000,
    slotsRefreshInterval: 1_000,
  }) as unknown as RedisClient;
}

function listenForErrors(client: RedisClient, topology: RedisTopology, logger: Pick<Logger, "warn"> | undefined): void {
  let lastWarning = Number.NEGATIVE_INFINITY;
  const where = describeRedisTopology(topology);
  const warn = (error: unknown) => {
    if (logger === undefined || Date.now() - lastWarning < WARN_EVERY_MS) return;
    lastWarning = Date.now();
    logger.warn({ err: { message: (error as Error)?.message }, redis: where }, "redis unavailable; reconnecting");
  };
  client.on("error", warn);
  // A cluster reports a failed node on its nodes, not on itself.
  client.on("node error", warn);
}

/**
 * `createRedisClient`, then waits for the first `ready` up to `bootWaitMs` (default 3 s): a
 * server starts either way, its stores answering 503 until Redis is reachable (readiness says
 * down meanwhile), and a warning says so.
 *
 * @example
 * const redis = await connectRedis<Redis | Cluster>(topology, { feature: "conduit serve", logger });
 */
export async function connectRedis<Client = RedisClient>(
  topology: RedisTopology,
  options: RedisClientOptions & { bootWaitMs?: number },
): Promise<Client> {
  const client = createRedisClient<RedisClient>(topology, options);
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), options.bootWaitMs ?? 3_000);
    client.once("ready", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready)
    options.logger?.warn(
      { redis: describeRedisTopology(topology) },
      "redis not reachable at start; serving with stores unavailable until it is",
    );
  return client as Client;
}

/**
 * Closes a client: `QUIT` when connected, else a plain disconnect (a `QUIT` to a server that is
 * down would wait for a reply that never comes).
 *
 * @example
 * await closeRedis(redis);
 */
export async function closeRedis(client: Pick<RedisClient, "quit" | "disconnect" | "status">): Promise<void> {
  if (client.status === "ready") await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}
