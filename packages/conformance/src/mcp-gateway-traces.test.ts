import { type McpHttpFixture, type OtlpReceiver, type ReceivedSpan, startMcpHttpFixture, startOtlpReceiver } from "@conduit-ai/fakes";
import type { McpGateway } from "@conduit-ai/mcp-gateway";
import { type TelemetryHandle, startTelemetry } from "@conduit-ai/telemetry";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { gatewayOf } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// The gateway's traces as a collector sees them, on every adapter: an `execute_tool <tool>` span
// (GenAI and MCP conventions) under the request's SERVER span, continuing the client's trace, and
// its W3C context sent on to the HTTP upstream.
const CLIENT_KEY = "mcp-traces-client-key-0123456789";
let receiver: OtlpReceiver;
let telemetry: TelemetryHandle | undefined;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  telemetry = await startTelemetry({ environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, exportImmediately: true });
});
afterAll(async () => {
  await telemetry?.shutdown();
  await receiver.close();
});

const newTraceId = () => Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join("");

forEachAdapter("mcp gateway traces", ({ start }) => {
  let web: McpHttpFixture;
  const gateways: McpGateway[] = [];
  const clients: Client[] = [];
  beforeEach(async () => {
    web = await startMcpHttpFixture({ name: "web" });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const gateway of gateways.splice(0)) await gateway.close();
    await web.close();
  });

  it("execute_tool <tool> under the request's SERVER span, with mcp.session.id and mcp.method.name; traceparent reaches the HTTP upstream", async () => {
    const gateway = gatewayOf({ servers: { web: { url: web.url } }, clientKeys: [CLIENT_KEY] }, gateways);
    const server = await start({ setup: (adapter) => gateway.install(adapter) });
    const traceId = newTraceId();
    const client = new SdkClient({ name: "traced", version: "1.0.0" });
    clients.push(client);
    const transport = new StreamableHTTPClientTransport(new URL(server.url("/mcp")), {
      requestInit: { headers: { authorization: `Bearer ${CLIENT_KEY}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` } },
    });
    await client.connect(transport);
    await client.callTool({ name: "web__add", arguments: { a: 1, b: 2 } });
    const isTool = (span: ReceivedSpan) => span.traceId === traceId && span.name === "execute_tool web__add";
    await receiver.waitFor((spans) => spans.some(isTool));
    const tool = receiver.spans.find(isTool) as ReceivedSpan;
    expect(tool.kind).toBe(1);
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "web__add",
      "mcp.method.name": "tools/call",
      "mcp.session.id": transport.sessionId,
      "conduit.mcp.server": "web",
    });
    // Arguments are content: not recorded without capture.
    expect(JSON.stringify(tool.attributes)).not.toContain('"a":1');
    const parent = receiver.spans.find((span) => span.spanId === tool.parentSpanId);
    expect(parent).toMatchObject({ kind: 2, traceId, name: "POST /mcp" });
    const upstream = web.requests.find((request) => request.traceparent?.includes(traceId));
    expect(upstream?.traceparent).toBe(`00-${traceId}-${tool.spanId}-01`);
  });
});
