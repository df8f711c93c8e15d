import type { DataStreamEvent } from "@conduit-ai/server-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import { conversationAnswer, startFakeAnthropic, startFakeOpenAI, type FakeServer } from "@conduit-ai/fakes";
import { rejection } from "../testing/rejection.js";

async function collect(events: AsyncIterable<DataStreamEvent>): Promise<DataStreamEvent[]> {
  const all: DataStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const vendors = [
  {
    name: "openai",
    start: startFakeOpenAI,
    environment: (url: string) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODELS: "gpt-4o-mini,llama3.2" }),
    model: "gpt-4o-mini",
  },
  {
    name: "anthropic",
    start: () => startFakeAnthropic({ anyCredential: true, answer: conversationAnswer("Anthropic", { input: 12, output: 5 }) }),
    environment: (url: string) => ({
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: `${url}/v1`,
      ANTHROPIC_MODELS: "claude-sonnet-4-5,claude-haiku-4-5",
    }),
    model: "claude-sonnet-4-5",
  },
] as const;

describe.each(vendors)("$name provider against a local server speaking its wire format", (vendor) => {
  let upstream: FakeServer;
  let runtime: ReturnType<typeof createRuntime>;
  beforeAll(async () => {
    upstream = await vendor.start();
    runtime = createRuntime({ env: vendor.environment(upstream.url), maxRetries: 0 });
  });
  afterAll(async () => {
    await runtime.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.scenario = "text";
    upstream.requests.length = 0;
  });

  it("is the default provider and generates through the JSON API", async () => {
    expect((await runtime.listProviders()).find((provider) => provider.default)?.name).toBe(vendor.name);
    const result = await runtime.generate({ input: { text: "hi" }, system: "be brief", sessionId: `${vendor.name}-s` });
    expect(result).toMatchObject({ provider: vendor.name, model: vendor.model, finishReason: "stop" });
    expect(result.content).toContain("heard 1 messages");
    expect(result.usage.totalTokens).toBeGreaterThan(0);
    // The next call in the session sends the history upstream.
    expect((await runtime.generate({ input: { text: "again" }, sessionId: `${vendor.name}-s` })).content).toContain("heard 3 messages");
  });

  it("streams text deltas and a finish event from SSE", async () => {
    const events = await collect(runtime.stream({ input: { text: "hi" } }));
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "text-delta").length).toBeGreaterThan(1);
    expect(types.at(-1)).toBe("finish");
    const text = events.flatMap((event) => (event.type === "text-delta" ? [(event.data as { delta: string }).delta] : [])).join("");
    expect(text).toContain("heard 1 messages");
  });

  it("runs tool calls the model asks for, in results and streams", async () => {
    upstream.scenario = "tool";
    const result = await runtime.generate({ input: { text: "multiply" }, tools: ["calculator"] });
    expect(result.toolCalls).toEqual([{ id: expect.any(String), name: "calculator", arguments: { expression: "6*7" } }]);
    expect(result.toolResults[0]).toMatchObject({ name: "calculator", result: { value: 42 } });
    expect(result.content.length).toBeGreaterThan(0);
    const types = (await collect(runtime.stream({ input: { text: "multiply" }, tools: true }))).map((event) => event.type);
    expect(types).toContain("tool-call");
    expect(types.indexOf("tool-result")).toBeGreaterThan(types.indexOf("tool-call"));
    expect(types.at(-1)).toBe("finish");
  });

  it("maps upstream 401, 429 and 500 to clear errors", async () => {
    upstream.scenario = "unauthorized";
    expect(await rejection(runtime.generate({ input: { text: "x" } }))).toMatchObject({
      code: "PROVIDER_AUTH_FAILED",
      statusCode: 502,
      category: "EXTERNAL",
    });
    upstream.scenario = "rate-limited";
    expect(await rejection(runtime.generate({ input: { text: "x" } }))).toMatchObject({
      code: "PROVIDER_RATE_LIMITED",
      statusCode: 429,
      retryAfterMs: 7000,
    });
    upstream.scenario = "server-error";
    expect(await rejection(runtime.generate({ input: { text: "x" } }))).toMatchObject({
      code: "PROVIDER_ERROR",
      statusCode: 502,
      category: "EXTERNAL",
    });
    const events = await collect(runtime.stream({ input: { text: "x" } }));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", data: { code: "PROVIDER_ERROR" } });
  });

  it("ends a stream cut mid-way with one error event instead of hanging", async () => {
    upstream.scenario = "cut";
    const events = await collect(runtime.stream({ input: { text: "x" } }));
    expect(events.at(-1)).toMatchObject({ type: "error", data: { code: expect.stringMatching(/^PROVIDER_/) } });
    expect(events.filter((event) => event.type === "error")).toHaveLength(1);
    expect(await rejection(runtime.generate({ input: { text: "x" } }))).toMatchObject({ statusCode: 502 });
  });

  it("rejects an unknown model with the list of available ones", async () => {
    const error = await rejection(runtime.generate({ input: { text: "x" }, model: "nope" }));
    expect(error).toMatchObject({ statusCode: 400, code: "MODEL_NOT_AVAILABLE" });
    expect((error.details as { available: string[] }).available).toContain(vendor.model);
  });
});

describe("OpenAI-compatible server without an API key (Ollama, llama.cpp)", () => {
  it("works with only a base URL and embeds through the server", async () => {
    const upstream = await startFakeOpenAI();
    const runtime = createRuntime({ env: { OPENAI_BASE_URL: `${upstream.url}/v1` }, maxRetries: 0 });
    try {
      expect((await runtime.generate({ input: { text: "hi" } })).provider).toBe("openai");
      expect(upstream.requests[0]?.headers.authorization).toBeUndefined();
      const embedded = await runtime.embedMany({ texts: ["a", "b"], provider: "openai" });
      expect(embedded).toMatchObject({ provider: "openai", model: "text-embedding-3-small", count: 2, dimension: 3 });
      expect((await runtime.embed({ text: "local please", provider: "local" })).dimension).toBe(256);
    } finally {
      await runtime.close();
      await upstream.close();
    }
  });
});

describe.each(vendors)("$name provider that accepts a call and then stays silent", (vendor) => {
  it("fails generate, stream, a stream gone quiet and embeddings with 504 PROVIDER_TIMEOUT", async () => {
    const upstream = await vendor.start();
    const runtime = createRuntime({ env: vendor.environment(upstream.url), maxRetries: 0, providerTimeout: { stepMs: 400, chunkMs: 300 } });
    try {
      upstream.scenario = "hang";
      const started = performance.now();
      expect(await rejection(runtime.generate({ input: { text: "x" } }))).toMatchObject({
        code: "PROVIDER_TIMEOUT",
        statusCode: 504,
        category: "EXTERNAL",
      });
      expect(performance.now() - started).toBeLessThan(3_000);
      const silent = await collect(runtime.stream({ input: { text: "x" } }));
      expect(silent).toEqual([expect.objectContaining({ type: "error", data: expect.objectContaining({ code: "PROVIDER_TIMEOUT" }) })]);
      upstream.scenario = "stall";
      const stalled = await collect(runtime.stream({ input: { text: "x" } }));
      expect(stalled.at(-1)).toMatchObject({ type: "error", data: { code: "PROVIDER_TIMEOUT" } });
      expect(stalled.filter((event) => event.type === "error")).toHaveLength(1);
      if (vendor.name === "openai") {
        upstream.scenario = "hang";
        expect(await rejection(runtime.embedMany({ texts: ["a"], provider: "openai" }))).toMatchObject({
          code: "PROVIDER_TIMEOUT",
          statusCode: 504,
        });
      }
    } finally {
      await runtime.close();
      await upstream.close();
    }
  });

  it("still reports the caller's own abort as STREAM_ABORTED, not a timeout", async () => {
    const upstream = await vendor.start();
    const runtime = createRuntime({
      env: vendor.environment(upstream.url),
      maxRetries: 0,
      providerTimeout: { stepMs: 5_000, chunkMs: 5_000 },
    });
    try {
      upstream.scenario = "hang";
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      expect(await rejection(runtime.generate({ input: { text: "x" } }, { signal: controller.signal }))).toMatchObject({
        code: "STREAM_ABORTED",
      });
    } finally {
      await runtime.close();
      await upstream.close();
    }
  });
});
