/**
 * One server of the `stack` bench in its own process: `stack-server.ts <framework> <conduit|ecosystem|same-work> <memory|redis> <prefix>`.
 * Serves `GET /api/items` behind the full stack and sends its port to the parent over IPC.
 *
 * conduit: `createServer` with its default stack (request id, timing, error handling,
 * security headers, pino request logging to stdout, compression, CORS, rate limit with the
 * ceiling raised, metrics) plus API-key auth from @conduit-ai/auth. With `redis` the rate
 * limit counts in Redis (`RedisRateLimitStore`) instead of memory.
 * ecosystem: the same framework with its own ecosystem's middleware, defaults kept (stack-ecosystem.ts).
 * same-work: those middleware configured to do exactly Conduit's work (stack-same-work.ts).
 */
import type { AddressInfo } from "node:net";
import { ApiKeyStore, createApiKeyAuthMiddleware } from "@conduit-ai/auth";
import { type ServerFramework, createServer } from "@conduit-ai/server-core";
import { RedisRateLimitStore, createRateLimitMiddleware } from "@conduit-ai/server-core/middleware";
import { Redis } from "ioredis";
import { API_KEY, ITEMS, RATE_LIMIT, WINDOW_MS, ecosystemServer } from "./stack-ecosystem.js";
import { sameWorkServer } from "./stack-same-work.js";

const [framework, side, store, prefix = "bench:stack:"] = process.argv.slice(2) as [
  ServerFramework,
  "conduit" | "ecosystem" | "same-work",
  "memory" | "redis",
  string,
];
const redis = store === "redis" ? new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379") : undefined;

async function startConduit(): Promise<number> {
  const server = await createServer(undefined, {
    framework,
    config: {
      port: 0,
      host: "127.0.0.1",
      // The Redis variant replaces the default (memory) limiter with the same middleware on Redis.
      rateLimit: redis ? { enabled: false } : { maxRequests: RATE_LIMIT, windowMs: WINDOW_MS },
    },
  });
  if (redis) {
    server.registerMiddleware(
      createRateLimitMiddleware({ maxRequests: RATE_LIMIT, windowMs: WINDOW_MS, store: new RedisRateLimitStore(redis, { prefix }) }),
    );
  }
  server.registerMiddleware(createApiKeyAuthMiddleware({ store: new ApiKeyStore().addKey(API_KEY, { id: "bench", roles: ["user"] }) }));
  server.registerRoute({ method: "GET", path: "/items", handler: () => ({ items: ITEMS }) });
  await server.start();
  return server.getStatus().port ?? 0;
}

async function startEcosystem(): Promise<number> {
  const server = await (side === "same-work" ? sameWorkServer : ecosystemServer)(framework, redis, prefix);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

const port = side === "conduit" ? await startConduit() : await startEcosystem();
process.send?.({ port });
// CPU time of this process, for the parent's µs-per-request figure; memory after a full GC (soak).
process.on("message", (message: string) => {
  if (message === "cpu") {
    const usage = process.cpuUsage();
    process.send?.({ cpu: usage.user + usage.system });
  }
  if (message === "memory") {
    globalThis.gc?.();
    globalThis.gc?.();
    const memory = process.memoryUsage();
    process.send?.({ rss: memory.rss, heapUsed: memory.heapUsed });
  }
});
process.on("disconnect", () => {
  redis?.disconnect();
  process.exit(0);
});
