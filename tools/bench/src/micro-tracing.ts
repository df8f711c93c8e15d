/**
 * In-process cost of tracing per request (no sockets): `node --conditions=@conduit-ai/source
 * --import tsx src/micro-tracing.ts`. Dispatches `GET /api/items` through the default stack on
 * Hono and the Node bridge into a stand-in response, each variant in a child process of its own
 * (a tracer is process-wide): tracing off, Conduit's hook with no-op spans, the `conduit` engine
 * (recommended attributes, then the lean profile) and the `opentelemetry` engine, both exporting every span to a counting receiver in another
 * process. Prints CPU µs per request and each variant's cost over "off". Without the kernel's
 * share of real sockets, this isolates what the engines themselves cost.
 */
import { fork } from "node:child_process";
import { HonoServerAdapter } from "@conduit-ai/adapter-hono";
import { getTracing, setTracing } from "@conduit-ai/server-core";
import { type NodeHandler, cpuPerRequest } from "./in-process-dispatch.js";
import { median } from "./statistics.js";

const VARIANTS = ["off", "hook", "conduit", "conduit-lean", "opentelemetry"] as const;
const execArgv = ["--conditions=@conduit-ai/source", "--import", "tsx"];
const ITEMS = Array.from({ length: 10 }, (_, index) => ({ id: index, name: `item ${index}`, tags: ["a", "b"] }));
const headers = { host: "127.0.0.1", "user-agent": "micro", accept: "*/*" };

async function runVariant(variant: string): Promise<void> {
  let receiver: ReturnType<typeof fork> | undefined;
  if (variant === "conduit" || variant === "conduit-lean" || variant === "opentelemetry") {
    receiver = fork(new URL("./tracing-receiver.ts", import.meta.url), [], { execArgv, stdio: ["ignore", "ignore", "inherit", "ipc"] });
    const endpoint = await new Promise<string>((resolve) =>
      receiver?.once("message", (message: { endpoint: string }) => resolve(message.endpoint)),
    );
    const { startTelemetry } = await import("@conduit-ai/telemetry");
    await startTelemetry({
      environment: {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_TRACES_SAMPLER: "always_on",
        CONDUIT_TELEMETRY_SDK: variant === "opentelemetry" ? "opentelemetry" : "conduit",
        CONDUIT_TELEMETRY_ATTRIBUTES: variant === "conduit-lean" ? "lean" : "recommended",
      },
    });
  }
  if (variant === "hook") setTracing({ ...getTracing(), enabled: true });
  const adapter = new HonoServerAdapter(undefined, {
    port: 0,
    host: "127.0.0.1",
    logging: { enabled: false },
    rateLimit: { maxRequests: 1e9, windowMs: 60_000 },
  });
  adapter.registerRoute({ method: "GET", path: "/items", handler: () => ({ items: ITEMS }) });
  const { handler } = adapter as unknown as { handler: NodeHandler };
  await cpuPerRequest(handler, "/api/items", headers, 1);
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) rounds.push(await cpuPerRequest(handler, "/api/items", headers, 1));
  process.send?.(median(rounds));
  receiver?.kill();
  process.exit(0);
}

const variant = process.argv[2];
if (variant !== undefined) await runVariant(variant);
else {
  const results = new Map<string, number>();
  for (const name of VARIANTS) {
    const child = fork(new URL(import.meta.url), [name], { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    results.set(name, await new Promise<number>((resolve) => child.once("message", (value: number) => resolve(value))));
  }
  const off = results.get("off") ?? 0;
  for (const [name, value] of results)
    console.log(
      `${name.padEnd(14)} ${value.toFixed(2).padStart(6)} µs/request${name === "off" ? "" : `  (${value >= off ? "+" : ""}${(value - off).toFixed(2)} µs)`}`,
    );
}
