/**
 * The process under measurement (forked by bench-streams.ts): Conduit on Hono with a held
 * SSE stream, a burst stream and the WebSocket surface. Answers `rss` over IPC.
 */
import { createServer } from "node:http";
import { createAdapter } from "@conduit-ai/adapter-hono";
import { encodeSseFrame } from "@conduit-ai/server-core/web";
import { createStreamResponse } from "@conduit-ai/streaming";
import { attachWebSocket } from "@conduit-ai/websocket";

const adapter = createAdapter(undefined, {
  port: 0,
  host: "127.0.0.1",
  logging: { enabled: false },
  rateLimit: { enabled: false },
  streaming: { keepAliveMs: 5_000 },
});
adapter.registerRoute({
  method: "GET",
  path: "/hold",
  handler: (ctx) =>
    createStreamResponse({
      signal: ctx.abortSignal,
      execute: async (stream) => {
        await stream.writeTextStart("t");
        await new Promise((resolve) => ctx.abortSignal.addEventListener("abort", resolve, { once: true }));
      },
    }),
});
adapter.registerRoute({
  method: "GET",
  path: "/burst",
  handler: (ctx) =>
    createStreamResponse({
      signal: ctx.abortSignal,
      execute: async (stream) => {
        const count = Number(ctx.query.count ?? 100_000);
        for (let index = 0; index < count && !stream.isClosed(); index++) await stream.writeTextDelta("t", "token ");
        await stream.finish();
      },
    }),
});
// The same burst from a plain async generator: separates the writer's cost from the core's.
adapter.registerRoute({
  method: "GET",
  path: "/burst-generator",
  handler: async function* (ctx) {
    const count = Number(ctx.query.count ?? 100_000);
    for (let index = 0; index < count; index++) yield { type: "text-delta", id: "t", timestamp: Date.now(), data: { delta: "token " } };
  },
});
attachWebSocket(adapter, { maxConnections: 10_000 });
await adapter.start();

// The baseline: the same frames written by a bare `res.write` loop (with drain handling).
const bare = createServer(async (request, response) => {
  const count = Number(new URL(request.url ?? "/", "http://x").searchParams.get("count") ?? 100_000);
  response.writeHead(200, { "content-type": "text/event-stream" });
  for (let index = 0; index < count; index++) {
    const frame = encodeSseFrame({ type: "text-delta", id: "t", timestamp: Date.now(), data: { delta: "token " } });
    if (!response.write(frame)) await new Promise((resolve) => response.once("drain", resolve));
  }
  response.end();
});
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));

process.on("message", (message: string) => {
  if (message === "rss") {
    globalThis.gc?.();
    process.send?.({ rss: process.memoryUsage().rss });
  }
});
process.send?.({ ready: true, port: adapter.address()?.port, barePort: (bare.address() as { port: number }).port });
