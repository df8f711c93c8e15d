import { type FakeAnthropic, type OtlpReceiver, startFakeAnthropic, startOtlpReceiver } from "@conduit-ai/fakes";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { killLeftovers, portOf, spawnConduit, writeConfig } from "../test-support/spawn-conduit.js";
import { VERSION } from "../version.js";

// `conduit serve` and `conduit proxy` as real processes exporting to a real OTLP receiver.
const TRACE = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";
const CLIENT_KEY = "proxy-client-key-0123456789";

let receiver: OtlpReceiver;
let anthropic: FakeAnthropic;

beforeAll(async () => {
  [receiver, anthropic] = await Promise.all([startOtlpReceiver(), startFakeAnthropic()]);
  anthropic.credentials.add("sk-ant-account-1");
});
afterAll(async () => {
  await Promise.all([receiver.close(), anthropic.close()]);
});
afterEach(killLeftovers);

describe("tracing from the CLI", () => {
  it("conduit serve traces when OTEL_EXPORTER_OTLP_ENDPOINT is set and sends the last spans when it drains", async () => {
    const serve = spawnConduit(["serve", "--port", "0", "--host", "127.0.0.1"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: "serve-under-test",
    });
    const port = portOf(await serve.ready);
    const response = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
    expect(response.status).toBe(200);
    // Batched export: the spans leave at the latest when the process drains.
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
    const span = receiver.spans.find((candidate) => candidate.traceId === TRACE);
    expect(span).toMatchObject({ name: "GET /api/health", parentSpanId: PARENT });
    expect(span?.resource).toMatchObject({ "service.name": "serve-under-test", "service.version": VERSION });
  }, 60_000);

  it("conduit proxy traces from the config file's telemetry key (gzip-compressed); a grpc protocol is refused before serving", async () => {
    const config = {
      telemetry: { endpoint: receiver.endpoint, protocol: "http/json", compression: "gzip", serviceName: "proxy-under-test" },
      proxy: {
        enabled: true,
        upstream: { anthropic: anthropic.url },
        clientKeys: [CLIENT_KEY],
        accounts: [{ id: "claude-1", type: "api-key", apiKey: "sk-ant-account-1" }],
      },
    };
    const proxy = spawnConduit(["proxy", "--config", writeConfig(config), "--port", "0"], {}, "Conduit proxy listening on ");
    const port = portOf(await proxy.ready);
    const response = await fetch(`http://127.0.0.1:${port}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": CLIENT_KEY,
        "anthropic-version": "2023-06-01",
        traceparent: `00-${TRACE}-${PARENT}-01`,
      },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(200);
    proxy.child.kill("SIGTERM");
    expect(await proxy.exited).toBe(0);
    const span = receiver.spans.find((candidate) => candidate.traceId === TRACE && candidate.name === "POST /v1/messages");
    expect(span?.encoding).toBe("json");
    expect(span?.resource["service.name"]).toBe("proxy-under-test");
    // The serve case before exported protobuf, uncompressed; every JSON export is this proxy's.
    const proxyExports = receiver.exports.filter((entry) => entry.contentType === "application/json");
    expect(proxyExports.length).toBeGreaterThan(0);
    expect(proxyExports.every((entry) => entry.headers["content-encoding"] === "gzip")).toBe(true);
    expect(JSON.stringify(receiver.spans)).not.toContain("sk-ant-account-1");
    expect(JSON.stringify(receiver.spans)).not.toContain(CLIENT_KEY);

    const refused = await runConduitInProcess(
      ["serve", "--port", "0", "--config", writeConfig({ telemetry: { endpoint: "http://127.0.0.1:4317" } })],
      {
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('OTLP protocol "grpc" is not supported');
  }, 60_000);
});
