/**
 * In-process cost of the `stack` route's parts (no sockets): `node --import tsx src/micro-stack.ts`.
 * Dispatches `GET /api/items` with an API key through `adapter.handler` and the Node bridge
 * into a stand-in response, with the whole stack and with one part left out at a time, so
 * each part's CPU µs per request shows (logging writes to /dev/null through pino).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HonoServerAdapter } from "@conduit-ai/adapter-hono";
import { ApiKeyStore, createApiKeyAuthMiddleware } from "@conduit-ai/auth";
import type { ServerAdapterConfig } from "@conduit-ai/server-core";
import { createLoggingMiddleware } from "@conduit-ai/server-core/middleware";
import { handleNodeRequest } from "@conduit-ai/server-core/node";
import { pino } from "pino";
import { API_KEY, ITEMS, RATE_LIMIT, WINDOW_MS } from "./stack-ecosystem.js";
import { median } from "./statistics.js";

type Handler = Parameters<typeof handleNodeRequest>[0];
const devNull = pino.destination({ dest: "/dev/null", sync: false });

function server(parts: { logging?: boolean; auth?: boolean; rateLimit?: boolean; metrics?: boolean; cors?: boolean }): {
  handler: Handler;
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
  return adapter as unknown as { handler: Handler };
}

class FakeResponse {
  headersSent = false;
  destroyed = false;
  writableFinished = false;
  closed = false;
  statusCode = 200;
  writeHead(status: number): this {
    this.statusCode = status;
    return this;
  }
  end(): void {
    this.headersSent = true;
    this.writableFinished = true;
  }
  once(): this {
    return this;
  }
  off(): this {
    return this;
  }
}

const headers = { host: "127.0.0.1", "user-agent": "micro", accept: "*/*", "x-api-key": API_KEY, origin: "https://app.example" };
async function measure(target: { handler: Handler }, seconds: number): Promise<number> {
  const route = target.handler.routes.routes().find((item) => item.fullPath === "/api/items");
  // CPU time, not wall time: on a shared machine the process is often off the CPU.
  const started = process.cpuUsage();
  const cpu = () => {
    const used = process.cpuUsage(started);
    return used.user + used.system;
  };
  let count = 0;
  while (cpu() < seconds * 1e6) {
    for (let index = 0; index < 100; index++) {
      const request = {
        method: "GET",
        url: "/api/items",
        headers,
        socket: { remoteAddress: "127.0.0.1" },
        readableEnded: true,
      } as unknown as IncomingMessage;
      const response = new FakeResponse();
      await handleNodeRequest(target.handler, request, response as unknown as ServerResponse, route);
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
    }
    count += 100;
  }
  return cpu() / count;
}

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
