/**
 * A child of `bench:tracing`: Conduit's default stack (request id, timing, errors, security
 * headers, logging off, compression, CORS, rate limit with a raised ceiling, metrics) on one
 * framework, serving one cell: `items` (`GET /api/items`, a plain route) or `messages` (the
 * proxy's `POST /v1/messages` passthrough to the parent's fake Anthropic upstream, one API-key
 * account). Tracing is on (every request sampled, exported to the parent's OTLP receiver; "on"
 * with the recommended attributes, "lean" with the lean profile), off, "hook" (Conduit's tracing
 * hook with no-op spans), or the conduit engine without export: "record" (spans recorded, dropped
 * at end) and "encode" (also encoded into OTLP requests that are never sent). Sends `{ port }` to
 * the parent; stops (flushing its spans) on disconnect.
 *
 * Arguments: framework, mode ("on" | "lean" | "off" | "hook" | "record" | "encode"), OTLP endpoint,
 * engine ("conduit" | "opentelemetry"), compression ("none" | "gzip"), cell ("items" | "messages"),
 * upstream URL (messages).
 */
import { createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { type ServerFramework, createServer, getTracing, setTracing } from "@conduit-ai/server-core";
import { startTelemetry } from "@conduit-ai/telemetry";
import { installLeanEngineWithoutExport } from "@conduit-ai/telemetry/testing";

const [framework = "hono", mode = "off", endpoint = "", sdk = "conduit", compression = "none", cell = "items", upstream = ""] =
  process.argv.slice(2);
const ITEMS = Array.from({ length: 10 }, (_, index) => ({ id: index, name: `item ${index}`, tags: ["a", "b"] }));

const telemetry =
  mode === "on" || mode === "lean"
    ? await startTelemetry({
        environment: {
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_TRACES_SAMPLER: "always_on",
          OTEL_SERVICE_NAME: "bench",
          CONDUIT_TELEMETRY_SDK: sdk,
          CONDUIT_TELEMETRY_ATTRIBUTES: mode === "lean" ? "lean" : "recommended",
          OTEL_EXPORTER_OTLP_COMPRESSION: compression,
        },
      })
    : undefined;
if ((mode === "on" || mode === "lean") && telemetry === undefined) throw new Error("tracing did not start");
// "hook": Conduit's traced request path with the no-op tracer's spans (no OpenTelemetry at all).
if (mode === "hook") setTracing({ ...getTracing(), enabled: true });
// "record" / "encode": the conduit engine with its spans dropped at end, or encoded and dropped.
if (mode === "record" || mode === "encode") installLeanEngineWithoutExport(mode);
const server = await createServer(undefined, {
  framework: framework as ServerFramework,
  config: { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { maxRequests: 1_000_000_000, windowMs: 60_000 } },
});
if (cell === "messages") {
  const proxy = createProxy({
    enabled: true,
    upstream: { anthropic: upstream },
    clientKeys: ["bench-client-key-0123456789"],
    accounts: [{ id: "bench", type: "api-key", apiKey: "sk-bench", maxInFlight: 10_000 }],
    rateLimit: { maxRequests: 1_000_000_000 },
  });
  registerProxyRoutes(server, proxy, { messages: true });
} else server.registerRoute({ method: "GET", path: "/items", handler: () => ({ items: ITEMS }) });
await server.start();
process.send?.({ port: server.address()?.port });
process.on("message", (message) => {
  if (message !== "cpu") return;
  const usage = process.cpuUsage();
  process.send?.({ cpu: usage.user + usage.system });
});
process.on("disconnect", async () => {
  await server.stop();
  await telemetry?.shutdown();
  process.exit(0);
});
