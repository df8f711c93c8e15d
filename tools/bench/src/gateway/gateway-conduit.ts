// Child of `bench:gateway`: Conduit (Hono adapter, default middleware stack) with the proxy's
// surfaces — `/v1/messages` passthrough, `/v1/chat/completions` translated to the Messages API — over
// API-key accounts on the fake Anthropic upstream, as `conduit proxy` assembles them.
// argv: <anthropic url> <mode>: "one" (one account), "failover" (a rate-limited account first, then
// the good one, fill-first), or "keys" (virtual keys on Redis: argv[4] the Redis URL, argv[5] how many
// keys; key i is `sk-conduit-bench-<i>`).
import { createAdapter } from "@conduit-ai/adapter-hono";
import { createGovernance, keyDigest } from "@conduit-ai/governance";
import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { connectRedis } from "@conduit-ai/server-core/middleware";
import type { Redis } from "ioredis";
import { answerParent } from "./child-protocol.js";

const [upstream = "", mode = "one", redisUrl = "", keyCount = "0"] = process.argv.slice(2);
const good = { id: "good", type: "api-key" as const, apiKey: "sk-bench", maxInFlight: 10_000 };
const limited = { id: "limited", type: "api-key" as const, apiKey: "sk-limited", maxInFlight: 10_000 };

const governance =
  mode === "keys"
    ? await createGovernance({
        keys: { store: "redis" },
        redis: await connectRedis<Redis>({ form: "url", url: redisUrl }, { feature: "bench" }),
        namespace: "bench-gateway",
        prices: {},
        env: {},
      })
    : undefined;
const proxy = createProxy(
  {
    enabled: true,
    upstream: { anthropic: upstream },
    clientKeys: governance ? [] : ["bench-client-key-0123456789"],
    accounts: mode === "failover" ? [limited, good] : [good],
    rateLimit: { maxRequests: 1_000_000_000 },
  },
  { chatCompletions: chatCompletionsFor(), ...(governance ? { gate: governance.gate } : {}) },
);
const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1" });
governance?.install(adapter);
registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true });
for (let index = 0; index < Number(keyCount); index++) {
  const key = `sk-conduit-bench-${index}`;
  await governance?.store.createKey(
    { id: `bench-${index}`, name: `bench ${index}`, hint: key.slice(-4), createdAt: new Date().toISOString(), limits: { rpm: 1_000_000 } },
    keyDigest(key, undefined),
  );
}
await adapter.start();
answerParent({ http: adapter.address()?.port ?? 0 }, async () => {
  await adapter.stop();
  await proxy.close();
  await governance?.close();
});
