import { type FakeAnthropic, type OtlpReceiver, type ReceivedSpan, startFakeAnthropic, startOtlpReceiver } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "@conduit-ai/proxy/testing";
import { readFile } from "node:fs/promises";
import { getTracing } from "@conduit-ai/server-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type TelemetryHandle, type TelemetrySdk, startTelemetry } from "./index.js";
import { LEAN_ATTRIBUTES } from "./settings/attribute-profiles.js";

const MODEL = "claude-sonnet-4-5";

// Each span of a proxied Messages call, its attribute keys under each profile: `recommended` is
// what Conduit records (the default, unchanged by the profiles), `lean` exactly LEAN_ATTRIBUTES'.
const SERVER_RECOMMENDED = [
  "conduit.request_id",
  "http.request.method",
  "http.response.status_code",
  "http.route",
  "network.protocol.version",
  "server.address",
  "server.port",
  "url.path",
  "user_agent.original",
];
const CHAT_RECOMMENDED = [
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.request.max_tokens",
  "gen_ai.request.model",
  "gen_ai.response.model",
  "gen_ai.usage.cache_creation.input_tokens",
  "gen_ai.usage.cache_read.input_tokens",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "http.response.status_code",
];
const ATTEMPT_RECOMMENDED = [
  "conduit.proxy.account_id",
  "conduit.proxy.vendor",
  "http.request.method",
  "http.response.status_code",
  "server.address",
  "server.port",
  "url.full",
];
const EXPECTED = {
  recommended: { server: SERVER_RECOMMENDED, chat: CHAT_RECOMMENDED, attempt: ATTEMPT_RECOMMENDED },
  lean: {
    server: ["http.request.method", "http.response.status_code", "http.route"],
    chat: [
      "gen_ai.request.model",
      "gen_ai.usage.cache_creation.input_tokens",
      "gen_ai.usage.cache_read.input_tokens",
      "gen_ai.usage.input_tokens",
      "gen_ai.usage.output_tokens",
      "http.response.status_code",
    ],
    attempt: ["http.request.method", "http.response.status_code"],
  },
} as const;

const VARIANTS: Array<{ sdk: TelemetrySdk; protocol: string }> = [
  { sdk: "conduit", protocol: "http/protobuf" },
  { sdk: "conduit", protocol: "http/json" },
  { sdk: "opentelemetry", protocol: "http/protobuf" },
];

let receiver: OtlpReceiver;
let fake: FakeAnthropic;
let proxy: ProxyServer;
let telemetry: TelemetryHandle | undefined;

beforeAll(async () => {
  [receiver, fake] = await Promise.all([startOtlpReceiver(), startFakeAnthropic()]);
  fake.credentials.add("sk-ant-profile");
  proxy = await startProxyServer({ upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: "sk-ant-profile" }] });
});
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});
afterAll(async () => {
  await proxy.stop();
  await Promise.all([receiver.close(), fake.close()]);
});

const keysOf = (span: ReceivedSpan | undefined) => Object.keys(span?.attributes ?? {}).sort();

describe.each(VARIANTS)("span attributes by profile ($sdk engine, $protocol)", ({ sdk, protocol }) => {
  it.each(["recommended", "lean"] as const)(
    "%s: each span of a proxied Messages call carries exactly the profile's attributes",
    async (profile) => {
      receiver.clear();
      telemetry = await startTelemetry({
        environment: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          CONDUIT_TELEMETRY_SDK: sdk,
          CONDUIT_TELEMETRY_ATTRIBUTES: profile,
        },
        exportImmediately: true,
      });
      expect(telemetry?.settings.attributes).toBe(profile);
      const response = await fetch(`${proxy.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "Hello" }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
      await receiver.waitFor(() => receiver.spans.length >= 3);
      const server = receiver.spans.find((span) => span.name === "POST /v1/messages");
      const chat = receiver.spans.find((span) => span.name === `chat ${MODEL}`);
      const attempt = receiver.spans.find((span) => span.name === "POST" && span.kind === 3);
      expect({ server: keysOf(server), chat: keysOf(chat), attempt: keysOf(attempt) }).toEqual(EXPECTED[profile]);
      // Whatever the profile: the values kept are the same, and the span's own fields stay.
      expect(server?.attributes).toMatchObject({
        "http.request.method": "POST",
        "http.route": "/v1/messages",
        "http.response.status_code": 200,
      });
      expect(chat?.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(chat?.parentSpanId).toBe(server?.spanId);
      expect(attempt?.parentSpanId).toBe(chat?.spanId);
    },
  );

  it("lean: a failed span keeps error.type, its status and its exception event; attributes set later are filtered too", async () => {
    receiver.clear();
    telemetry = await startTelemetry({
      environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, CONDUIT_TELEMETRY_SDK: sdk },
      config: { attributes: "lean" },
      exportImmediately: true,
    });
    const span = getTracing().startSpan("execute_tool search", {
      attributes: { "http.route": "/tools/:name", "url.path": "/tools/search" },
    });
    span.setAttributes({ "conduit.tool.name": "search", "http.response.status_code": 502 });
    span.fail(new TypeError("upstream went away"));
    span.end();
    await receiver.waitFor(() => receiver.spans.length >= 1);
    const [exported] = receiver.spans;
    expect(keysOf(exported)).toEqual(["error.type", "http.response.status_code", "http.route"]);
    // Left out by the profile, not over a limit: nothing counted as dropped.
    expect(exported?.droppedAttributesCount).toBe(0);
    expect(exported?.status).toMatchObject({ code: 2, message: "upstream went away" });
    expect(exported?.events.map((event) => [event.name, event.attributes["exception.type"]])).toEqual([["exception", "TypeError"]]);
  });
});

describe("LEAN_ATTRIBUTES", () => {
  it("is the list the README documents", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const documented = /^Lean attributes: (.+)$/m.exec(readme)?.[1] ?? "";
    expect([...documented.matchAll(/`([^`]+)`/g)].map((match) => match[1])).toEqual([...LEAN_ATTRIBUTES]);
  });
});
