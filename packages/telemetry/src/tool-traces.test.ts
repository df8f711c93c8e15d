import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@conduit-ai/fakes";
import { setTimeout as sleep } from "node:timers/promises";
import { createAdapter } from "@conduit-ai/adapter-hono";
import { createRuntime } from "@conduit-ai/runtime";
import { type BaseServerAdapter, type GenerateRequest, callContextOf, registerAllRoutes } from "@conduit-ai/server-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type TelemetryHandle, type TelemetrySdk, startTelemetry } from "./index.js";
import { TELEMETRY_SDKS } from "./settings/telemetry-settings.js";

// The parents of the runtime's spans travel explicitly (ctx.traceSpan → callContextOf → the plan's
// context), not through an ambient async context: these trees hold with any engine, and after awaits.
const TRACE = "5bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "10f067aa0ba902b7";
const traceparent = `00-${TRACE}-${PARENT}-01`;

let receiver: OtlpReceiver;
let adapter: BaseServerAdapter<unknown>;
let runtime: ReturnType<typeof createRuntime>;
let telemetry: TelemetryHandle | undefined;
let base: string;

const ofTrace = () => receiver.spans.filter((span) => span.traceId === TRACE);
const named = (name: string) => ofTrace().find((span) => span.name === name) as ReceivedSpan;
const chatSpan = () => ofTrace().find((span) => span.name.startsWith("chat ")) as ReceivedSpan;

async function post(path: string, body: unknown): Promise<Response> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", traceparent },
    body: JSON.stringify(body),
  });
  await response.text();
  return response;
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  runtime = createRuntime({ env: {} });
  adapter = createAdapter(runtime, { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false } });
  registerAllRoutes(adapter);
  // A handler of one's own that awaits before it calls the runtime: the parent still arrives.
  adapter.registerRoute({
    method: "POST",
    path: "/late-generate",
    handler: async (ctx) => {
      await sleep(5);
      return runtime.generate(ctx.body as GenerateRequest, callContextOf(ctx));
    },
  });
  await adapter.start();
  base = `http://127.0.0.1:${adapter.address()?.port}`;
});

afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});

afterAll(async () => {
  await adapter.stop();
  await runtime.close();
  await receiver.close();
});

async function trace(sdk: TelemetrySdk): Promise<void> {
  receiver.clear();
  telemetry = await startTelemetry({
    environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, CONDUIT_TELEMETRY_SDK: sdk },
    exportImmediately: true,
  });
}

describe.each(TELEMETRY_SDKS)("the runtime's spans under the request's, passed explicitly (%s engine)", (sdk) => {
  for (const path of ["/api/agent/generate", "/api/agent/stream"]) {
    it(`${path}: a chat span under the server span, the model's tool call an execute_tool span under the chat span`, async () => {
      await trace(sdk);
      expect((await post(path, { input: { text: "What is (2+3)*4?" }, tools: true })).status).toBe(200);
      await receiver.waitFor(() => ofTrace().some((span) => span.name === `POST ${path}`));
      await telemetry?.forceFlush();
      const server = named(`POST ${path}`);
      expect(server.parentSpanId).toBe(PARENT);
      expect(chatSpan().parentSpanId).toBe(server.spanId);
      const tool = named("execute_tool calculator");
      expect(tool.parentSpanId).toBe(chatSpan().spanId);
      expect(tool.attributes["gen_ai.tool.name"]).toBe("calculator");
    });
  }

  it("a tool run through /api/tools: execute_tool under the server span", async () => {
    await trace(sdk);
    expect((await post("/api/tools/calculator/execute", { arguments: { expression: "1+1" } })).status).toBe(200);
    await receiver.waitFor(() => ofTrace().some((span) => span.name === "POST /api/tools/:name/execute"));
    await telemetry?.forceFlush();
    expect(named("execute_tool calculator").parentSpanId).toBe(named("POST /api/tools/:name/execute").spanId);
  });

  it("a handler that awaits before calling the runtime with callContextOf(ctx): the chat span is still the request's child", async () => {
    await trace(sdk);
    expect((await post("/api/late-generate", { input: { text: "hello" } })).status).toBe(200);
    await receiver.waitFor(() => ofTrace().some((span) => span.name === "POST /api/late-generate"));
    await telemetry?.forceFlush();
    expect(chatSpan().parentSpanId).toBe(named("POST /api/late-generate").spanId);
  });
});
