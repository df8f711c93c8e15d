/**
 * One server of `bench:governance`, in its own process: `governance-server.ts <mode> <framework> <redisUrl> <namespace>`.
 * Both modes serve `POST /api/agent/generate` on the offline local runtime with the default middleware stack:
 *
 * - off: no governance (the baseline);
 * - on: virtual keys on the Redis store, the key with rpm, tpm, concurrency and a budget set, so every
 *   request runs the admit script (one round trip) and the settle script (one more).
 * The process sends its port and, in mode `on`, the key's secret to the parent.
 */
import { createGovernance } from "@conduit-ai/governance";
import { createRuntime } from "@conduit-ai/runtime";
import { type ServerFramework, createServer, registerAllRoutes } from "@conduit-ai/server-core";
import { Redis } from "ioredis";

const [mode, framework, redisUrl, namespace] = process.argv.slice(2) as ["off" | "on", ServerFramework, string, string];
const runtime = createRuntime({ env: {} });
const server = await createServer(runtime, {
  framework,
  config: { port: 0, host: "127.0.0.1", rateLimit: { enabled: false }, logging: { enabled: false } },
});
registerAllRoutes(server);
let key: string | undefined;
if (mode === "on") {
  const governance = await createGovernance({
    keys: { store: "redis" },
    redis: new Redis(redisUrl),
    namespace,
    prices: { echo: { input: 0.01, output: 0.01 } },
    env: {},
  });
  governance.install(server, { virtualKeyAuth: true });
  const secret = `sk-conduit-bench-${namespace}`;
  const { keyDigest } = await import("@conduit-ai/governance");
  await governance.store.createKey(
    {
      id: "bench",
      name: "bench",
      hint: secret.slice(-4),
      createdAt: new Date().toISOString(),
      limits: { rpm: 100_000_000, tpm: 1_000_000_000_000, concurrency: 10_000 },
      budgets: [{ usd: 1_000, window: "total" }],
    },
    keyDigest(secret, undefined),
  );
  key = secret;
}
await server.start();
process.on("SIGINT", () => process.exit(0));
process.send?.({ port: server.getStatus().port, key });
