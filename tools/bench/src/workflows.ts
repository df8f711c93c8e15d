/**
 * `bench:workflows`: latency of the simulated `/api/ai` workflows on large inputs.
 * - debug-ai-output on a 100 KB AI response (JSON against a JSON Schema, with errors to find);
 * - generate-test-cases on a 2,000-line TypeScript module.
 * Each is measured over HTTP (Hono adapter, default middleware, sequential requests) and as the
 * analysis alone (the route handler's work without the server), side by side in one run.
 * Wall time is what a client sees; CPU time (process.cpuUsage, user + system) is the work done,
 * which a busy machine does not inflate — on a shared host compare the CPU figures with the goals.
 * Options: --requests N (200), --warmup N (20).
 */
import { parseArgs } from "node:util";
import { registerAiWorkflows } from "@conduit-ai/ai-workflows";
import { createRuntime } from "@conduit-ai/runtime";
import { createServer } from "@conduit-ai/server-core";

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: { requests: { type: "string", default: "200" }, warmup: { type: "string", default: "20" } },
});
const requests = Number(values.requests);
const warmup = Number(values.warmup);

function debugBody(): unknown {
  const items = [];
  let text = "";
  for (let index = 0; text.length < 102_400; index++) {
    items.push({
      id: index,
      name: `item ${index}`,
      price: index % 7 === 0 ? String(index) : index * 1.5,
      tags: ["a", "b"],
      description: "An AI-generated description of the item ".repeat(2),
    });
    text = JSON.stringify(items, null, 2);
  }
  // A trailing comma near the end and a missing field: work for the parser, the locator and the repair.
  const broken = `${text.slice(0, -2)},\n]`;
  const schema = {
    type: "array",
    items: {
      type: "object",
      properties: { id: { type: "integer" }, name: { type: "string" }, price: { type: "number" }, sku: { type: "string" } },
      required: ["id", "name", "price", "sku"],
    },
  };
  return { aiResponse: broken, expectedFormat: schema, issueTypes: ["format", "logic", "completeness", "type-mismatch"] };
}

function moduleOf2000Lines(): string {
  const parts: string[] = ['import { readFile } from "node:fs/promises";', ""];
  for (let index = 0; parts.length < 2_000; index++) {
    parts.push(
      "/**",
      ` * Computes value ${index}.`,
      " * @param amount - How much",
      " * @param label - What to call it",
      ` * @example`,
      ` * compute${index}(2, "x"); // => 4`,
      " */",
      `export function compute${index}(amount: number, label: string, options: { strict?: boolean } = {}): number {`,
      `  if (amount < 0) throw new RangeError("amount must not be negative");`,
      `  if (typeof label !== "string") throw new TypeError("label");`,
      `  if (options.strict && label.length === 0) return 0;`,
      "  let total = 0;",
      "  for (let step = 0; step < amount; step++) total += step % 2 === 0 ? 2 : 1;",
      `  return label === "double" ? total * 2 : total;`,
      "}",
      "",
    );
  }
  return parts.slice(0, 2_000).join("\n");
}

const percentile = (sorted: number[], fraction: number) =>
  sorted[Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length))) - 1] as number;
function summary(samples: number[]): { p50: number; p95: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99) };
}

const runtime = createRuntime({ env: {}, usage: false });
const server = await createServer(runtime, {
  framework: "hono",
  config: { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false }, bodyParser: { limit: "10mb" } },
});
const group = registerAiWorkflows(server);
await server.start();
const port = (server as unknown as { address(): { port: number } }).address().port;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Client and server share this process: the CPU figure includes the client's side of the request. */
async function overHttp(path: string, body: string): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/api/ai/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text.slice(0, 200)}`);
  return { wallMs: performance.now() - started, cpuMs: cpuMsSince(cpu) };
}

async function inProcess(path: string, body: unknown): Promise<Sample> {
  const route = group.routes.find((candidate) => candidate.path.endsWith(`/${path}`));
  const schema = route?.schema?.body;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const parsed = schema ? schema.parse(body) : body;
  await route?.handler({ body: parsed, abortSignal: new AbortController().signal } as never);
  return { wallMs: performance.now() - started, cpuMs: cpuMsSince(cpu) };
}

const scenarios: Array<{ name: string; path: string; body: unknown; goalMs: number; size: string }> = [
  { name: "debug-ai-output", path: "debug-ai-output", body: debugBody(), goalMs: 50, size: "" },
  {
    name: "generate-test-cases",
    path: "generate-test-cases",
    body: {
      codeFunction: moduleOf2000Lines(),
      testTypes: ["unit", "edge-cases", "integration", "performance", "security"],
      framework: "vitest",
    },
    goalMs: 200,
    size: "",
  },
];
for (const scenario of scenarios) {
  const text = JSON.stringify(scenario.body);
  scenario.size =
    scenario.name === "debug-ai-output"
      ? `${Math.round(((scenario.body as { aiResponse: string }).aiResponse.length / 1024) * 10) / 10} KB response`
      : "2,000-line module";
  for (let index = 0; index < warmup; index++) {
    await overHttp(scenario.path, text);
    await inProcess(scenario.path, scenario.body);
  }
  const http: Sample[] = [];
  const alone: Sample[] = [];
  // Alternate the two measurements so machine noise hits both alike.
  for (let index = 0; index < requests; index++) {
    http.push(await overHttp(scenario.path, text));
    alone.push(await inProcess(scenario.path, scenario.body));
  }
  const format = (value: number) => value.toFixed(1).padStart(7);
  const line = (label: string, samples: number[], goal?: number) => {
    const figures = summary(samples);
    const verdict = goal === undefined ? "" : `  goal p99 < ${goal} ms: ${figures.p99 < goal ? "met" : "missed"}`;
    console.log(
      `  ${label.padEnd(24)} p50 ${format(figures.p50)} ms  p95 ${format(figures.p95)} ms  p99 ${format(figures.p99)} ms${verdict}`,
    );
    return figures;
  };
  console.log(`\n${scenario.name} (${scenario.size}, simulated), ${requests} sequential requests`);
  const httpWall = line(
    "over HTTP, wall",
    http.map((sample) => sample.wallMs),
    scenario.goalMs,
  );
  line(
    "over HTTP, CPU",
    http.map((sample) => sample.cpuMs),
    scenario.goalMs,
  );
  const aloneWall = line(
    "analysis alone, wall",
    alone.map((sample) => sample.wallMs),
  );
  line(
    "analysis alone, CPU",
    alone.map((sample) => sample.cpuMs),
    scenario.goalMs,
  );
  console.log(`  HTTP / alone (p50 wall): ${(httpWall.p50 / aloneWall.p50).toFixed(2)}`);
}
await server.stop();
await runtime.close();
