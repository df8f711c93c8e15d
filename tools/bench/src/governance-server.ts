/**
 * One server of `bench:governance`, in its own process:
 * `governance-server.ts <mode> <framework> <redisUrl> <namespace> <upstreamUrl> <clientKey>`.
 * Both modes serve the proxy's `POST /v1/messages` passthrough to the fake upstream, with the
 * default middleware stack minus logging and the per-address limiter (the same in both):
 *
 * - off: no governance, `clientKey` in the proxy's `clientKeys` (the baseline);
 * - on: virtual keys on the Redis store, `clientKey` minted with rpm, tpm, concurrency and a budget,
 *   so every request runs the admit script (one round trip) and the settle script (one more);
 * - routed: `on`, and the request's model a routing name over three deployments (`weighted`), so
 *   every call also takes the routing plan and its bookkeeping.
 * The process reports its port and answers CPU questions (see bench-children.ts).
 */
import { createGovernance, keyDigest } from "@conduit-ai/governance";
import { createProxy } from "@conduit-ai/proxy";
import { createRuntime } from "@conduit-ai/runtime";
import { type ServerFramework, createServer, registerAllRoutes } from "@conduit-ai/server-core";
import { connectRedis } from "@conduit-ai/server-core/middleware";
import type { Redis } from "ioredis";
import { serveParent } from "./bench-children.js";

const [mode, framework, redisUrl, namespace, upstream, clientKey] = process.argv.slice(2) as [
  "off" | "on" | "routed",
  ServerFramework,
  string,
  string,
  string,
  string,
];
const server = await createServer(createRuntime({ env: {} }), {
  framework,
  config: { port: 0, host: "127.0.0.1", rateLimit: { enabled: false }, logging: { enabled: false } },
});
const governance =
  mode !== "off"
    ? await createGovernance({
        keys: { store: "redis" },
        // The client `conduit serve` builds: server-core's factory (fail fast, auto-pipelining).
        redis: await connectRedis<Redis>({ form: "url", url: redisUrl }, { feature: "bench" }),
        namespace,
        prices: {},
        // `BENCH_DATABASE_URL`: the usage history on PostgreSQL too — with Redis, each settle then
        // keeps its event in the Redis outbox, and a drain writes it.
        ...(process.env.BENCH_DATABASE_URL ? { databaseUrl: process.env.BENCH_DATABASE_URL } : {}),
        env: {},
      })
    : undefined;
const proxy = createProxy(
  {
    enabled: true,
    upstream: { anthropic: upstream },
    clientKeys: governance ? [] : [clientKey],
    accounts: [{ id: "bench", type: "api-key", apiKey: "sk-bench", maxInFlight: 10_000 }],
    rateLimit: { enabled: false },
    ...(mode === "routed"
      ? {
          models: {
            "claude-sonnet-4-5": {
              targets: [
                { target: "anthropic/claude-sonnet-4-5", weight: 2 },
                { target: "anthropic/claude-sonnet-4-5-20250929" },
                { target: "anthropic/claude-sonnet-4-0" },
              ],
              strategy: "weighted" as const,
            },
          },
        }
      : {}),
  },
  governance ? { gate: governance.gate } : {},
);
registerAllRoutes(server, undefined, { proxy });
if (governance) {
  governance.install(server);
  await governance.store.createKey(
    {
      id: "bench",
      name: "bench",
      hint: clientKey.slice(-4),
      createdAt: new Date().toISOString(),
      limits: { rpm: 100_000_000, tpm: 1_000_000_000_000, concurrency: 10_000 },
      budgets: [{ usd: 1_000_000, window: "total" }],
    },
    keyDigest(clientKey, undefined),
  );
}
await server.start();
serveParent(server.getStatus().port ?? 0, async () => {
  await server.stop();
  await proxy.close();
  await governance?.close();
});
