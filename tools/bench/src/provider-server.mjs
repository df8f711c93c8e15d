/**
 * Conduit in its own process for provider-streams.ts: `provider-server.mjs <framework> <upstream URL>`.
 * Plain JavaScript on the built packages, so the measured process runs as users run it: no
 * TypeScript loader hooks and no source-mapped stack traces.
 * The reference runtime calls the slow OpenAI-compatible upstream over HTTP (the AI SDK's
 * OpenAI-compatible provider, as `OPENAI_BASE_URL` configures it); the agent routes and
 * `/api/metrics` are served with the default middleware stack, request logging on (to
 * stdout, which the bench sends to /dev/null) and the rate limit ceiling raised.
 * Answers `sample` over IPC with its RSS, heap and CPU time.
 */
import { writeHeapSnapshot } from "node:v8";
import { createRuntime } from "@conduit-ai/runtime";
import { createAgentRoutes, createServer } from "@conduit-ai/server-core";

const [framework = "hono", upstream = ""] = process.argv.slice(2);
const runtime = createRuntime({
  openai: { baseURL: `${upstream}/v1`, apiKey: "bench-key", models: ["bench-model"] },
  anthropic: false,
  env: {},
});
const server = await createServer(runtime, {
  framework,
  config: {
    port: 0,
    host: "127.0.0.1",
    rateLimit: { maxRequests: 1_000_000_000 },
    // The bench scrapes /api/metrics anonymously during the load (a real server sets a token instead).
    metrics: { public: true },
    // The bench holds every stream open; keep-alive comments only at the default 15 s.
  },
});
server.registerRouteGroup(createAgentRoutes(runtime));
await server.start();

process.on("message", (message) => {
  if (message === "sample") {
    const memory = process.memoryUsage();
    process.send?.({
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      external: memory.external,
      cpu: process.cpuUsage(),
    });
  }
  // Diagnostics (heap-summary.ts reads the file): a snapshot of the process as it is now.
  if (message.startsWith("snapshot:")) process.send?.({ file: writeHeapSnapshot(message.slice("snapshot:".length)) });
  if (message === "gc") {
    globalThis.gc?.();
    globalThis.gc?.();
    process.send?.({ done: true });
  }
});
process.send?.({ port: server.getStatus().port });
process.on("disconnect", () => process.exit(0));
