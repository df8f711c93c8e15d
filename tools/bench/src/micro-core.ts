/**
 * In-process cost of the core alone (no sockets): `node --import tsx src/micro-core.ts [--dist]`.
 * Dispatches GET /api/health through `adapter.handler` with and without the default stack,
 * and hands each answer to a stand-in response that drops the bytes, so a change to the core or the
 * bridge can be judged in seconds without the noise of a network benchmark.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type AdapterOptions, type ServerAdapter, createHealthRoutes } from "@conduit-ai/server-core";
import { handleNodeRequest } from "@conduit-ai/server-core/node";
import { HonoServerAdapter } from "@conduit-ai/adapter-hono";
import { StandInResponse } from "./in-process-dispatch.js";

type Handler = Parameters<typeof handleNodeRequest>[0];

function adapter(options: AdapterOptions): ServerAdapter & { handler: Handler } {
  const server = new HonoServerAdapter(undefined, { port: 0, host: "127.0.0.1" }, options);
  server.registerRouteGroup(createHealthRoutes(server as Parameters<typeof createHealthRoutes>[0]));
  return server as unknown as ServerAdapter & { handler: Handler };
}

function request(): { request: IncomingMessage; response: ServerResponse } {
  const request = {
    method: "GET",
    url: "/api/health",
    headers: { host: "127.0.0.1", "user-agent": "micro", accept: "*/*" },
    socket: { remoteAddress: "127.0.0.1" },
    readableEnded: true,
  } as unknown as IncomingMessage;
  return { request, response: new StandInResponse() as unknown as ServerResponse };
}

async function measure(name: string, server: { handler: Handler }, seconds = 3): Promise<number> {
  const route = server.handler.routes.routes().find((item) => item.fullPath === "/api/health");
  const deadline = performance.now() + seconds * 1000;
  let count = 0;
  while (performance.now() < deadline) {
    for (let index = 0; index < 1000; index++) {
      const { request: incoming, response } = request();
      await handleNodeRequest(server.handler, incoming, response, route);
    }
    count += 1000;
  }
  const microseconds = (seconds * 1e6) / count;
  console.log(
    `${name.padEnd(22)} ${Math.round(count / seconds)
      .toString()
      .padStart(8)} req/s  ${microseconds.toFixed(2)} µs/request`,
  );
  return microseconds;
}

const withStack = adapter({});
const withoutStack = adapter({ defaultMiddleware: false });
// Warm-up, then alternate.
await measure("warm-up", withStack, 1);
await measure("warm-up", withoutStack, 1);
for (let round = 0; round < 2; round++) {
  await measure("default stack", withStack);
  await measure("no default stack", withoutStack);
  // Baseline: building the request/response pair alone.
  const deadline = performance.now() + 1000;
  let count = 0;
  while (performance.now() < deadline) {
    const { response } = request();
    response.end("{}");
    count++;
  }
  console.log(`${"objects + end only".padEnd(22)} ${count.toString().padStart(8)} req/s  ${(1e6 / count).toFixed(2)} µs/request`);
}
