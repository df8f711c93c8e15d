import { type FakeAnthropic, type OtlpReceiver, type ReceivedSpan, startFakeAnthropic, startOtlpReceiver } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "@conduit-ai/proxy/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TelemetryHandle, startTelemetry } from "./index.js";
import { TELEMETRY_SDKS } from "./settings/telemetry-settings.js";

const TRACE = "5bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "10f067aa0ba902b7";
const MODEL = "claude-sonnet-4-5";

let receiver: OtlpReceiver;
let fake: FakeAnthropic;
let proxy: ProxyServer;
let telemetry: TelemetryHandle | undefined;

beforeAll(async () => {
  [receiver, fake] = await Promise.all([startOtlpReceiver(), startFakeAnthropic()]);
  for (const key of ["sk-ant-account-a", "sk-ant-account-b"]) fake.credentials.add(key);
});
afterAll(async () => {
  await Promise.all([receiver.close(), fake.close()]);
});

describe.each(TELEMETRY_SDKS)("a proxied Messages call traced through the relay loop (%s engine)", (sdk) => {
  // A proxy per engine: the scripted 429 leaves account a cooling down.
  beforeAll(async () => {
    receiver.clear();
    telemetry = await startTelemetry({
      environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, CONDUIT_TELEMETRY_SDK: sdk },
      exportImmediately: true,
    });
    proxy = await startProxyServer({
      upstream: { anthropic: fake.url },
      maxRetries: 2,
      accounts: [
        { id: "a", type: "api-key", apiKey: "sk-ant-account-a", priority: 0 },
        { id: "b", type: "api-key", apiKey: "sk-ant-account-b", priority: 1 },
      ],
    });
  });
  afterAll(async () => {
    await proxy.stop();
    await telemetry?.shutdown();
  });

  it("streams after a retry, a cooldown and a failover: one chat span, a client span per attempt with its account, the decisions as events", async () => {
    const rateLimited = JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } });
    const overloaded = JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "busy" } });
    fake.script(
      "sk-ant-account-a",
      { status: 529, body: overloaded },
      { status: 429, headers: { "retry-after": "120" }, body: rateLimited },
    );
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": CLIENT_KEY,
        "anthropic-version": "2023-06-01",
        traceparent: `00-${TRACE}-${PARENT}-01`,
      },
      body: JSON.stringify({ model: MODEL, max_tokens: 32, stream: true, messages: [{ role: "user", content: "tell me a secret word" }] }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("message_stop");

    const inTrace = () => receiver.spans.filter((span) => span.traceId === TRACE);
    await receiver.waitFor(() => inTrace().some((span) => span.kind === 2));
    const server = inTrace().find((span) => span.name === "POST /v1/messages") as ReceivedSpan;
    expect(server).toMatchObject({ parentSpanId: PARENT, attributes: { "http.route": "/v1/messages", "http.response.status_code": 200 } });

    const chat = inTrace().find((span) => span.name === `chat ${MODEL}`) as ReceivedSpan;
    expect(chat.parentSpanId).toBe(server.spanId);
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": MODEL,
      "gen_ai.request.max_tokens": 32,
      "http.response.status_code": 200,
    });
    expect(chat.attributes["gen_ai.response.model"]).toEqual(expect.any(String));
    expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    expect(chat.events.map((event) => event.name)).toEqual(["conduit.proxy.retry", "conduit.proxy.cooldown", "conduit.proxy.failover"]);
    expect(chat.events[0]?.attributes).toMatchObject({ "conduit.proxy.account_id": "a", "http.response.status_code": 529 });
    expect(chat.events[1]?.attributes).toMatchObject({ "conduit.proxy.account_id": "a" });
    expect(chat.events[2]?.attributes).toMatchObject({
      "conduit.proxy.from_account_id": "a",
      "conduit.proxy.account_id": "b",
      "conduit.proxy.reason": "rate_limited",
    });

    const attempts = inTrace()
      .filter((span) => span.parentSpanId === chat.spanId)
      .sort((first, second) => (BigInt(first.startTimeUnixNano) < BigInt(second.startTimeUnixNano) ? -1 : 1));
    expect(
      attempts.map((span) => [
        span.name,
        span.kind,
        span.attributes["conduit.proxy.account_id"],
        span.attributes["http.response.status_code"],
      ]),
    ).toEqual([
      ["POST", 3, "a", 529],
      ["POST", 3, "a", 429],
      ["POST", 3, "b", 200],
    ]);
    expect(attempts[2]?.attributes["url.full"]).toBe(`${fake.url}/v1/messages`);
    // Each attempt is the vendor's parent.
    expect(fake.exchanges.slice(-3).map((exchange) => exchange.headers.traceparent)).toEqual(
      attempts.map((span) => `00-${TRACE}-${span.spanId}-01`),
    );
    // The stream's spans end with the stream.
    expect(BigInt(server.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(attempts[2]?.endTimeUnixNano ?? "0"));
    const everything = JSON.stringify(inTrace());
    for (const secret of ["sk-ant-account-a", "sk-ant-account-b", CLIENT_KEY, "tell me a secret word"])
      expect(everything).not.toContain(secret);
  });
});
