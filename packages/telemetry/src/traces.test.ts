import { createAdapter } from "@conduit-ai/adapter-hono";
import { createAiWorkflowRoutes } from "@conduit-ai/ai-workflows";
import {
  type FakeAnthropic,
  type McpHttpFixture,
  type OtlpReceiver,
  type ReceivedSpan,
  startFakeAnthropic,
  startMcpHttpFixture,
  startOtlpReceiver,
} from "@conduit-ai/fakes";
import { createRuntime } from "@conduit-ai/runtime";
import { type BaseServerAdapter, registerAllRoutes } from "@conduit-ai/server-core";
import { request } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type TelemetryHandle, type TelemetrySdk, startTelemetry } from "./index.js";
import { TELEMETRY_SDKS } from "./settings/telemetry-settings.js";

const API_KEY = "sk-ant-trace-test-secret-0123456789";
const MODEL = "claude-sonnet-4-5";
const INCOMING_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const INCOMING_PARENT = "00f067aa0ba902b7";
const SERVER = 2;
const CLIENT = 3;

let receiver: OtlpReceiver;
let anthropic: FakeAnthropic;
let mcp: McpHttpFixture;
let adapter: BaseServerAdapter<unknown>;
let runtime: ReturnType<typeof createRuntime>;
let telemetry: TelemetryHandle | undefined;
let base: string;

async function trace(sdk: TelemetrySdk, environment: Record<string, string>): Promise<void> {
  await telemetry?.shutdown();
  receiver.clear();
  telemetry = await startTelemetry({
    environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, CONDUIT_TELEMETRY_SDK: sdk, ...environment },
    exportImmediately: true,
  });
}

/** A GET with the `Host` given (fetch may not set one), continuing the trace `traceId`. */
function getWithHost(path: string, host: string, traceId: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}${path}`, { headers: { host, traceparent: `00-${traceId}-${INCOMING_PARENT}-01` } }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    outgoing.on("error", reject).end();
  });
}

const byName = (spans: ReceivedSpan[], name: string) => spans.find((span) => span.name === name);
const ofTrace = (traceId: string) => receiver.spans.filter((span) => span.traceId === traceId);

beforeAll(async () => {
  [receiver, anthropic, mcp] = await Promise.all([startOtlpReceiver(), startFakeAnthropic(), startMcpHttpFixture()]);
  anthropic.credentials.add(API_KEY);
  runtime = createRuntime({
    env: {},
    anthropic: { apiKey: API_KEY, baseURL: `${anthropic.url}/v1` },
    mcpServers: { demo: { url: mcp.url } },
  });
  await runtime.ready();
  adapter = createAdapter(runtime, { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false } });
  registerAllRoutes(adapter);
  adapter.registerRouteGroup(createAiWorkflowRoutes(runtime));
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
  await Promise.all([receiver.close(), anthropic.close(), mcp.close()]);
});

describe.each(TELEMETRY_SDKS)("traces exported over OTLP/HTTP to a real receiver (%s engine)", (sdk) => {
  it("a streamed generation: server span continuing the incoming trace, a GenAI chat span ended with the stream's usage, traceparent to the vendor (protobuf)", async () => {
    await trace(sdk, {});
    const response = await fetch(`${base}/api/agent/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01`, tracestate: "vendor=x" },
      body: JSON.stringify({ input: { text: "Say hello" }, provider: "anthropic", model: MODEL, maxTokens: 64 }),
    });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toContain("event: finish");
    const requestId = response.headers.get("x-request-id");

    const spans = await receiver.waitFor(() => ofTrace(INCOMING_TRACE).some((span) => span.kind === SERVER));
    expect(receiver.exports.every((entry) => entry.contentType === "application/x-protobuf")).toBe(true);
    const server = byName(ofTrace(INCOMING_TRACE), "POST /api/agent/stream") as ReceivedSpan;
    expect(server).toMatchObject({ kind: SERVER, parentSpanId: INCOMING_PARENT });
    expect(server.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/api/agent/stream",
      "url.path": "/api/agent/stream",
      "http.response.status_code": 200,
      "server.address": "127.0.0.1",
      "conduit.request_id": requestId,
    });
    expect(server.resource["service.name"]).toBe("conduit");

    const chat = byName(ofTrace(INCOMING_TRACE), `chat ${MODEL}`) as ReceivedSpan;
    expect(chat).toMatchObject({ kind: CLIENT, parentSpanId: server.spanId });
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": MODEL,
      "gen_ai.response.model": MODEL,
      "gen_ai.request.max_tokens": 64,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    // The server span of a stream ends with the stream, after the model call it carried.
    expect(BigInt(server.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(chat.endTimeUnixNano));
    // No content without capture, no secret ever.
    expect(chat.attributes["gen_ai.input.messages"]).toBeUndefined();
    expect(JSON.stringify(spans)).not.toContain(API_KEY);
    expect(JSON.stringify(spans)).not.toContain("Say hello");

    // Out: the vendor got the chat span as its parent, and the incoming tracestate.
    const sent = anthropic.exchanges.at(-1)?.headers;
    expect(sent?.traceparent).toBe(`00-${INCOMING_TRACE}-${chat.spanId}-01`);
    expect(sent?.tracestate).toBe("vendor=x");
  });

  it("OTLP/JSON with headers, a service name and content capture: prompt and answer on the chat span, export headers never in spans", async () => {
    await trace(sdk, {
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token-secret,x-team=ops",
      OTEL_SERVICE_NAME: "gateway-a",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    });
    const response = await fetch(`${base}/api/agent/generate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "Name a colour" }, provider: "anthropic", model: MODEL }),
    });
    expect(response.status).toBe(200);
    const spans = await receiver.waitFor((all) => all.some((span) => span.name === "POST /api/agent/generate"));
    expect(receiver.exports[0]?.contentType).toBe("application/json");
    expect(receiver.exports[0]?.headers.authorization).toBe("Bearer collector-token-secret");
    expect(receiver.exports[0]?.headers["x-team"]).toBe("ops");
    const server = byName(spans, "POST /api/agent/generate") as ReceivedSpan;
    // A request without traceparent starts a new trace.
    expect(server.parentSpanId).toBe("");
    expect(server.resource["service.name"]).toBe("gateway-a");
    const chat = spans.find((span) => span.traceId === server.traceId && span.name === `chat ${MODEL}`) as ReceivedSpan;
    expect(chat.encoding).toBe("json");
    expect(String(chat.attributes["gen_ai.input.messages"])).toContain("Name a colour");
    const answer = ((await response.json()) as { data: { content: string } }).data.content;
    expect(String(chat.attributes["gen_ai.output.messages"])).toContain(answer);
    expect(JSON.stringify(spans)).not.toContain("collector-token-secret");
    expect(JSON.stringify(spans)).not.toContain(API_KEY);
  });

  it("an MCP tool call: a tools/call client span under the request, its traceparent sent to the MCP server in HTTP headers and _meta", async () => {
    await trace(sdk, {});
    const response = await fetch(`${base}/api/mcp/servers/demo/tools/shout/execute`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01` },
      body: JSON.stringify({ arguments: { text: "quiet" } }),
    });
    expect(response.status).toBe(200);
    await receiver.waitFor(() => ofTrace(INCOMING_TRACE).some((span) => span.kind === SERVER));
    const server = byName(ofTrace(INCOMING_TRACE), "POST /api/mcp/servers/:name/tools/:toolName/execute") as ReceivedSpan;
    expect(server.attributes["url.path"]).toBe("/api/mcp/servers/demo/tools/shout/execute");
    const call = byName(ofTrace(INCOMING_TRACE), "tools/call shout") as ReceivedSpan;
    expect(call).toMatchObject({ kind: CLIENT, parentSpanId: server.spanId });
    expect(call.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "shout",
      "conduit.mcp.server": "demo",
      "server.address": "127.0.0.1",
    });
    expect(JSON.stringify(call)).not.toContain("quiet");
    const seen = mcp.traceContexts.at(-1);
    expect(seen?.headerTraceparent).toBe(`00-${INCOMING_TRACE}-${call.spanId}-01`);
    expect(seen?.metaTraceparent).toBe(`00-${INCOMING_TRACE}-${call.spanId}-01`);
  });

  it("an /api/ai workflow: a workflow span under the request, its model call a chat span under it", async () => {
    await trace(sdk, {});
    const response = await fetch(`${base}/api/ai/debug-ai-output`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01` },
      body: JSON.stringify({
        aiResponse: '{"a": 1,}',
        expectedFormat: "json",
        issueTypes: ["format"],
        provider: "anthropic",
        model: MODEL,
      }),
    });
    expect(response.status).toBe(200);
    await receiver.waitFor(() => ofTrace(INCOMING_TRACE).some((span) => span.kind === SERVER));
    // The OpenTelemetry engine exports each span on its own, concurrently: the server span may arrive first.
    await telemetry?.forceFlush();
    const server = byName(ofTrace(INCOMING_TRACE), "POST /api/ai/debug-ai-output") as ReceivedSpan;
    const workflow = byName(ofTrace(INCOMING_TRACE), "workflow debug-ai-output") as ReceivedSpan;
    expect(workflow).toMatchObject({ parentSpanId: server.spanId });
    expect(workflow.attributes["conduit.workflow.name"]).toBe("debug-ai-output");
    expect(typeof workflow.attributes["conduit.workflow.simulated"]).toBe("boolean");
    const chat = byName(ofTrace(INCOMING_TRACE), `chat ${MODEL}`) as ReceivedSpan;
    expect(chat).toMatchObject({ kind: CLIENT, parentSpanId: workflow.spanId });
    expect(JSON.stringify(ofTrace(INCOMING_TRACE))).not.toContain('{"a": 1,}');
  });

  it("gzip compression (OTEL_EXPORTER_OTLP_COMPRESSION): every export is sent gzip-encoded and decodes to the same spans", async () => {
    await trace(sdk, { OTEL_EXPORTER_OTLP_COMPRESSION: "gzip" });
    const response = await fetch(`${base}/api/health`, { headers: { traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01` } });
    expect(response.status).toBe(200);
    const spans = await receiver.waitFor(() => ofTrace(INCOMING_TRACE).length > 0);
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(receiver.exports.every((entry) => entry.headers["content-encoding"] === "gzip")).toBe(true);
    expect(byName(spans, "GET /api/health")).toMatchObject({ kind: SERVER, parentSpanId: INCOMING_PARENT });
  });

  it("server.address and server.port follow each request's Host, however the previous one named it", async () => {
    await trace(sdk, {});
    const hosts = [
      ["api.example.com:8443", "api.example.com", 8443],
      ["[::1]", "[::1]", undefined],
      ["api.example.com:8443", "api.example.com", 8443],
      ["127.0.0.1:9000", "127.0.0.1", 9000],
    ] as const;
    const traceIds = hosts.map((_, index) => `${"ab".repeat(15)}0${index}`);
    for (const [index, [host]] of hosts.entries()) expect(await getWithHost("/api/health", host, traceIds[index] as string)).toBe(200);
    await receiver.waitFor(() => traceIds.every((traceId) => ofTrace(traceId).length > 0));
    for (const [index, [, address, port]] of hosts.entries()) {
      const server = byName(ofTrace(traceIds[index] as string), "GET /api/health") as ReceivedSpan;
      expect(server.attributes["server.address"]).toBe(address);
      expect(server.attributes["server.port"]).toBe(port);
    }
  });

  it("sampling: always_off records nothing, yet a sampled parent's decision is honoured by the parent-based default", async () => {
    await trace(sdk, { OTEL_TRACES_SAMPLER: "always_off" });
    await fetch(`${base}/api/health`);
    await telemetry?.forceFlush();
    expect(receiver.spans).toEqual([]);
    await trace(sdk, { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" });
    await fetch(`${base}/api/health`, { headers: { traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01` } });
    await fetch(`${base}/api/health/live`);
    await receiver.waitFor(() => ofTrace(INCOMING_TRACE).length > 0);
    await telemetry?.forceFlush();
    expect(receiver.spans.map((span) => span.name)).toEqual(["GET /api/health"]);
  });
});
