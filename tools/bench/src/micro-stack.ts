/**
 * In-process cost of the `stack` route's parts (no sockets): `node --import tsx src/micro-stack.ts`.
 * Dispatches `GET /api/items` with an API key through `adapter.handler` and the Node bridge
 * into a stand-in response, with the whole stack and with one part left out at a time, so
 * each part's CPU µs per request shows (logging writes to /dev/null through pino).
 */
import { HonoServerAdapter } from "@conduit-ai/adapter-hono";
import { ApiKeyStore, createApiKeyAuthMiddleware } from "@conduit-ai/auth";
import type { ServerAdapterConfig } from "@conduit-ai/server-core";
import { createLoggingMiddleware } from "@conduit-ai/server-core/middleware";
import { pino } from "pino";
import { API_KEY, ITEMS, RATE_LIMIT, WINDOW_MS } from "./stack-ecosystem.js";
import { type NodeHandler, cpuPerRequest } from "./in-process-dispatch.js";
import { median } from "./statistics.js";

const devNull = pino.destination({ dest: "/dev/null", sync: false });

function server(parts: { logging?: boolean; auth?: boolean; rateLimit?: boolean; metrics?: boolean; cors?: boolean }): {
  handler: NodeHandler;
} {
  const config: ServerAdapterConfig = {
    port: 0,
    host: "127.0.0.1",
    logging: { enabled: false },
    rateLimit: parts.rateLimit === false ? { enabled: false } : { maxRequests: RATE_LIMIT, windowMs: WINDOW_MS },
    enableMetrics: parts.metrics !== false,
    cors: { enabled: parts.cors !== false },
  };
  const adapter = new HonoServerAdapter(undefined, config);
  if (parts.logging !== false) adapter.registerMiddleware(createLoggingMiddleware({ destination: devNull }));
  if (parts.auth !== false)
    adapter.registerMiddleware(createApiKeyAuthMiddleware({ store: new ApiKeyStore().addKey(API_KEY, { id: "bench" }) }));
  adapter.registerRoute({ method: "GET", path: "/items", handler: () => ({ items: ITEMS }) });
  return adapter as unknown as { handler: NodeHandler };
}

const headers = { host: "127.0.0.1", "user-agent": "micro", accept: "*/*", "x-api-key": API_KEY, origin: "https://app.example" };
const measure = (target: { handler: NodeHandler }, seconds: number) => cpuPerRequest(target.handler, "/api/items", headers, seconds);

const variants: Array<[string, Parameters<typeof server>[0]]> = [
  ["whole stack", {}],
  ["without logging", { logging: false }],
  ["without auth", { auth: false }],
  ["without rate limit", { rateLimit: false }],
  ["without metrics", { metrics: false }],
  ["without cors", { cors: false }],
  ["none of these", { logging: false, auth: false, rateLimit: false, metrics: false, cors: false }],
];
const servers = variants.map(([name, parts]) => [name, server(parts)] as const);
for (const [, target] of servers) await measure(target, 0.5);
const results = new Map<string, number[]>();
for (let round = 0; round < 3; round++) {
  for (const [name, target] of servers) results.set(name, [...(results.get(name) ?? []), await measure(target, 1)]);
}
const whole = median(results.get("whole stack") ?? []);
for (const [name, values] of results) {
  const value = median(values);
  console.log(
    `${name.padEnd(20)} ${value.toFixed(2).padStart(7)} µs/request${name === "whole stack" ? "" : `  (part: ${(whole - value).toFixed(2)} µs)`}`,
  );
}
