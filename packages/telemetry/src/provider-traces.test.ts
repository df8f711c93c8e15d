import { type OtlpReceiver, startFakeGemini, startOtlpReceiver, type VendorFake } from "@conduit-ai/fakes";
import { createRuntime } from "@conduit-ai/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TelemetryHandle, startTelemetry } from "./index.js";

const GEMINI_KEY = "gemini-trace-secret-0123456789";
let receiver: OtlpReceiver;
let gemini: VendorFake & { baseURL: string };
let telemetry: TelemetryHandle | undefined;

beforeAll(async () => {
  [receiver, gemini] = await Promise.all([startOtlpReceiver(), startFakeGemini()]);
  gemini.keys.add(GEMINI_KEY);
  telemetry = await startTelemetry({ environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, exportImmediately: true });
});

afterAll(async () => {
  await telemetry?.shutdown();
  await Promise.all([receiver.close(), gemini.close()]);
});

describe("the chat span of a named provider", () => {
  it("carries OpenTelemetry's vendor name, the configured name and the cache usage, and no key", async () => {
    const runtime = createRuntime({
      env: {},
      maxRetries: 0,
      providers: { "team-gemini": { type: "google", apiKeys: [GEMINI_KEY], baseURL: gemini.baseURL } },
    });
    try {
      for await (const _ of runtime.stream({ input: { text: "hi" }, model: "team-gemini/gemini-2.5-flash" }));
    } finally {
      await runtime.close();
    }
    const spans = await receiver.waitFor((received) => received.some((span) => span.name === "chat gemini-2.5-flash"));
    const chat = spans.find((span) => span.name === "chat gemini-2.5-flash");
    expect(chat?.attributes).toMatchObject({
      "gen_ai.provider.name": "gcp.gemini",
      "conduit.provider.name": "team-gemini",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 8,
      "gen_ai.usage.cache_read.input_tokens": 5,
    });
    expect(JSON.stringify(spans)).not.toContain(GEMINI_KEY);
  });
});
