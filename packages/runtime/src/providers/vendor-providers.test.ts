import type { DataStreamEvent } from "@conduit-ai/server-core";
import { type AnswerModel, type FakeServer, PROVIDER_CASES as VENDOR_CASES, VENDOR_KEY } from "@conduit-ai/fakes";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import type { ProviderConfig } from "./providers-config.js";
import { rejection } from "../testing/rejection.js";

/** A case's settings without a `models` list: every model id accepted. */
function unlisted(settings: Record<string, unknown>): ProviderConfig {
  const { models: _listed, ...open } = settings;
  return open as ProviderConfig;
}

async function collect(events: AsyncIterable<DataStreamEvent>): Promise<DataStreamEvent[]> {
  const all: DataStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const textOf = (events: DataStreamEvent[]) =>
  events.flatMap((event) => (event.type === "text-delta" ? [(event.data as { delta: string }).delta] : [])).join("");

describe.each(VENDOR_CASES)("provider type $type against its vendor fake", (vendor) => {
  let upstream: FakeServer & { keys?: Set<string> };
  let runtime: ReturnType<typeof createRuntime>;
  const name = `my-${vendor.type}`;
  beforeAll(async () => {
    upstream = await vendor.start();
    runtime = createRuntime({ env: {}, maxRetries: 0, providers: { [name]: unlisted(vendor.provider(upstream)) } });
    await runtime.loadProviders();
  });
  afterAll(async () => {
    await runtime.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.scenario = "text";
    upstream.requests.length = 0;
  });

  it("generates with model '<provider>/<model>' and reports the vendor's usage with its cache and reasoning details", async () => {
    const result = await runtime.generate({ input: { text: "hi" }, model: `${name}/${vendor.model}` });
    expect(result).toMatchObject({ provider: name, model: vendor.model, finishReason: "stop" });
    expect(result.content).toBe(`${vendor.speaker} heard 1 messages`);
    expect(result.usage).toMatchObject({ outputTokens: 8, ...vendor.details });
    expect(result.usage.inputTokens).toBeGreaterThanOrEqual(12);
    expect((await runtime.listProviders()).find((provider) => provider.name === name)?.default).toBe(true);
  });

  it("streams text deltas and a finish event carrying the usage", async () => {
    const events = await collect(runtime.stream({ input: { text: "hi" }, model: `${name}/${vendor.model}` }));
    expect(events.filter((event) => event.type === "text-delta").length).toBeGreaterThan(1);
    expect(textOf(events)).toBe(`${vendor.speaker} heard 1 messages`);
    expect(events.at(-1)).toMatchObject({ type: "finish", data: { usage: { outputTokens: 8, ...vendor.details } } });
  });

  it("runs the tool the model calls, in a result and a stream", async () => {
    upstream.scenario = "tool";
    const result = await runtime.generate({ input: { text: "multiply" }, model: `${name}/${vendor.model}`, tools: ["calculator"] });
    expect(result.toolCalls).toEqual([{ id: expect.any(String), name: "calculator", arguments: { expression: "6*7" } }]);
    expect(result.toolResults[0]).toMatchObject({ name: "calculator", result: { value: 42 } });
    const types = (await collect(runtime.stream({ input: { text: "multiply" }, model: `${name}/${vendor.model}`, tools: true }))).map(
      (event) => event.type,
    );
    expect(types.indexOf("tool-result")).toBeGreaterThan(types.indexOf("tool-call"));
    expect(types.at(-1)).toBe("finish");
  });

  it("passes the vendor's error message through and maps 429 and auth failures", async () => {
    upstream.scenario = "server-error";
    const failed = await rejection(runtime.generate({ input: { text: "x" }, model: `${name}/${vendor.model}` }));
    expect(failed).toMatchObject({ code: "PROVIDER_ERROR", statusCode: 502 });
    expect(failed.message).toMatch(/fake|server|Internal/i);
    upstream.scenario = "rate-limited";
    expect(await rejection(runtime.generate({ input: { text: "x" }, model: `${name}/${vendor.model}` }))).toMatchObject({
      code: "PROVIDER_RATE_LIMITED",
      statusCode: 429,
      retryAfterMs: 7000,
    });
    upstream.scenario = "forbidden";
    expect(await rejection(runtime.generate({ input: { text: "x" }, model: `${name}/${vendor.model}` }))).toMatchObject({
      code: "PROVIDER_AUTH_FAILED",
      statusCode: 502,
    });
  });

  it("accepts a model id it does not list, and refuses one outside a configured models list", async () => {
    expect((await runtime.generate({ input: { text: "hi" }, provider: name, model: "brand-new-model" })).model).toBe("brand-new-model");
    const listed = createRuntime({
      env: {},
      maxRetries: 0,
      providers: { [name]: { ...vendor.provider(upstream), models: [vendor.model] } as ProviderConfig },
    });
    try {
      const refused = await rejection(listed.generate({ input: { text: "x" }, model: `${name}/other-model` }));
      expect(refused).toMatchObject({ statusCode: 400, code: "MODEL_NOT_AVAILABLE", details: { available: [vendor.model] } });
    } finally {
      await listed.close();
    }
  });
});

describe.each(VENDOR_CASES.filter((vendor) => vendor.embeddingModel !== undefined))("provider type $type embeddings", (vendor) => {
  it("embeds through the vendor with model '<provider>/<embedding model>'", async () => {
    const upstream = await vendor.start();
    const runtime = createRuntime({ env: {}, maxRetries: 0, providers: { vectors: vendor.provider(upstream) as ProviderConfig } });
    try {
      const embedded = await runtime.embedMany({ texts: ["a", "b"], model: `vectors/${vendor.embeddingModel}` });
      expect(embedded).toMatchObject({ provider: "vectors", model: vendor.embeddingModel, count: 2, dimension: 3 });
    } finally {
      await runtime.close();
      await upstream.close();
    }
  });
});

describe.each(VENDOR_CASES.filter((vendor) => ["google", "azure-openai", "mistral", "cohere"].includes(vendor.type)))(
  "provider type $type with a key the vendor refuses",
  (vendor) => {
    it("reports 502 PROVIDER_AUTH_FAILED and never shows the key, though the vendor echoed it", async () => {
      const upstream = await vendor.start();
      const refusedKey = "sk-refused-secret-9876543210";
      const runtime = createRuntime({
        env: { REFUSED_KEY: refusedKey },
        maxRetries: 0,
        providers: { vendor: { ...vendor.provider(upstream), apiKeys: ["env:REFUSED_KEY"] } as ProviderConfig },
      });
      try {
        const error = await rejection(runtime.generate({ input: { text: "x" }, model: `vendor/${vendor.model}` }));
        expect(error).toMatchObject({ code: "PROVIDER_AUTH_FAILED", statusCode: 502 });
        // The vendor saw the key and echoed it; nothing the runtime holds about the failure does.
        expect(JSON.stringify(upstream.requests.at(-1)?.headers)).toContain(refusedKey);
        const cause = error.cause as { responseBody?: string; message?: string };
        expect(cause.responseBody).toContain("[redacted]");
        expect(`${error.message} ${cause.message} ${cause.responseBody} ${JSON.stringify(error.details)}`).not.toContain(refusedKey);
        expect(VENDOR_KEY).not.toBe(refusedKey);
      } finally {
        await runtime.close();
        await upstream.close();
      }
    });
  },
);

describe("vendor wire details through the runtime", () => {
  it("google: an image part reaches Gemini as inlineData, and a JSON schema as responseSchema (structured output)", async () => {
    const vendor = VENDOR_CASES.find((candidate) => candidate.type === "google")!;
    const upstream = await vendor.start();
    const runtime = createRuntime({ env: {}, maxRetries: 0, providers: { gemini: vendor.provider(upstream) as ProviderConfig } });
    try {
      await runtime.generate({
        model: "gemini/gemini-2.5-flash",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "what is it?" },
              { type: "image", url: "data:image/png;base64,iVBORw0KGgo=" },
            ],
          },
        ],
      });
      const parts = (upstream.requests.at(-1)?.body.contents as Array<{ parts: unknown[] }> | undefined)?.[0]?.parts;
      expect(parts).toEqual([{ text: "what is it?" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }]);
      (upstream as typeof upstream & { answer: AnswerModel }).answer = () => ({ text: ['{"answer":', "42}"] });
      const structured = await runtime.generate({
        input: { text: "json please" },
        model: "gemini/gemini-2.5-flash",
        responseFormat: { type: "json", schema: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] } },
      });
      expect(JSON.parse(structured.content)).toEqual({ answer: 42 });
      expect(upstream.requests.at(-1)?.body.generationConfig).toMatchObject({
        responseMimeType: "application/json",
        responseSchema: { type: "object", properties: { answer: { type: "number" } } },
      });
    } finally {
      await runtime.close();
      await upstream.close();
    }
  });

  it("bedrock: an image part reaches Converse as an image block", async () => {
    const vendor = VENDOR_CASES.find((candidate) => candidate.type === "bedrock")!;
    const upstream = await vendor.start();
    const runtime = createRuntime({ env: {}, maxRetries: 0, providers: { aws: vendor.provider(upstream) as ProviderConfig } });
    try {
      await runtime.generate({
        model: "aws/amazon.nova-pro-v1:0",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "what?" },
              { type: "image", url: "data:image/png;base64,iVBORw0KGgo=" },
            ],
          },
        ],
      });
      const content = (upstream.requests.at(-1)?.body.messages as Array<{ content: unknown[] }> | undefined)?.[0]?.content;
      expect(content).toEqual([{ text: "what?" }, { image: { format: "png", source: { bytes: "iVBORw0KGgo=" } } }]);
    } finally {
      await runtime.close();
      await upstream.close();
    }
  });
});
