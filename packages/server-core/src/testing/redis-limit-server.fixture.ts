/**
 * Test fixture (run as a child process by redis-rate-limit-store.test.ts): one server
 * process limiting `GET /api/hit` through the shared Redis store.
 * argv: key prefix, maxRequests, windowMs.
 */
import { createServer } from "node:http";
import { Redis } from "ioredis";
import { handleNodeRequest } from "../node/node-bridge.js";
import { createTestApp } from "./test-kit.js";
import { RedisRateLimitStore } from "../middleware/rate-limit/redis-rate-limit-store.js";
import { createRateLimitMiddleware } from "../middleware/rate-limit/window-rate-limit.js";

const [prefix = "test:", maxRequests = "10", windowMs = "60000"] = process.argv.slice(2);
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const store = new RedisRateLimitStore(redis, { prefix });
const { adapter } = createTestApp({
  middleware: [
    createRateLimitMiddleware({ maxRequests: Number(maxRequests), windowMs: Number(windowMs), store, keyGenerator: () => "shared" }),
  ],
  routes: [{ method: "GET", path: "/hit", handler: () => ({ pid: process.pid }) }],
});
const server = createServer((request, response) => void handleNodeRequest(adapter.handler, request, response));
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`);
});
process.on("SIGTERM", () => {
  server.close();
  redis.disconnect();
  process.exit(0);
});
