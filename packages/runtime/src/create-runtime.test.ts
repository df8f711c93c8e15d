import { randomUUID } from "node:crypto";
import { type DataStreamEvent, ServerAdapterError, silentLogger } from "@conduit-ai/server-core";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntime } from "./create-runtime.js";
import { cosineSimilarity } from "./providers/local-embeddings.js";

const runtimes: Array<{ close(): Promise<void> }> = [];
function offlineRuntime(options: Parameters<typeof createRuntime>[0] = {}) {
  const runtime = createRuntime({ env: {}, ...options });
  runtimes.push(runtime);
  return runtime;
}
afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
});

async function collect(events: AsyncIterable<DataStreamEvent>): Promise<DataStreamEvent[]> {
  const all: DataStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

async function rejection(action: () => unknown): Promise<ServerAdapterError> {
  try {
    await action();
  } catch (error) {
    if (ServerAdapterError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("runtime on the embedded local provider", () => {
  it("generates a deterministic, labeled answer", async () => {
    const runtime = offlineRuntime();
    const first = await runtime.generate({ input: { text: "Hello there" } });
    expect(first).toMatchObject({ provider: "local", model: "echo", finishReason: "stop", toolCalls: [], toolResults: [] });
    expect(first.content).toContain('you said "Hello there"');
    expect(first.usage.totalTokens).toBe(first.usage.inputTokens + first.usage.outputTokens);
    expect(await runtime.generate({ input: { text: "Hello there" } })).toEqual(first);
  });

  it("lists the local provider as the default when nothing is configured", async () => {
    expect(await offlineRuntime().listProviders()).toEqual([
      { name: "local", models: ["echo", "hashed-ngram-256"], available: true, default: true },
    ]);
  });

  it("streams text-start, word deltas, text-end and finish", async () => {
    const events = await collect(offlineRuntime().stream({ input: { text: "stream me" } }));
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("text-start");
    expect(types.at(-2)).toBe("text-end");
    expect(types.at(-1)).toBe("finish");
    const deltas = events.filter((event) => event.type === "text-delta");
    expect(deltas.length).toBeGreaterThan(3);
    const text = deltas.map((event) => (event.data as { delta: string }).delta).join("");
    expect(text).toContain('you said "stream me"');
    expect(events.at(-1)?.data).toMatchObject({ reason: "stop", usage: { outputTokens: expect.any(Number) } });
  });

  it("calls the calculator and clock tools by a deterministic rule", async () => {
    const runtime = offlineRuntime();
    const math = await runtime.generate({ input: { text: "What is (2+3)*4?" }, tools: true });
    expect(math.toolCalls).toEqual([{ id: "call_local_1", name: "calculator", arguments: { expression: "(2+3)*4" } }]);
    expect(math.toolResults[0]).toMatchObject({ name: "calculator", result: { value: 20 } });
    expect(math.content).toContain("= 20");

    const events = await collect(runtime.stream({ input: { text: "What time is it in Europe/Paris?" }, tools: ["current_time"] }));
    expect(events.slice(0, 2).map((event) => event.type)).toEqual(["tool-call", "tool-result"]);
    expect(events[0]?.data).toMatchObject({ name: "current_time", arguments: { timezone: "Europe/Paris" } });
    expect(events[1]?.data).toMatchObject({ result: { timezone: "Europe/Paris" } });
    expect(events.at(-1)?.type).toBe("finish");

    const noTools = await runtime.generate({ input: { text: "What is 2+3?" } });
    expect(noTools.toolCalls).toEqual([]);
  });

  it("accepts the legacy prompt with a one-time deprecation warning", async () => {
    const warnings: string[] = [];
    const runtime = offlineRuntime({ onDeprecation: (message) => warnings.push(message) });
    expect((await runtime.generate({ prompt: "old style" })).content).toContain('"old style"');
    await runtime.generate({ prompt: "again" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/prompt is deprecated/);
  });

  it("rejects empty input, unknown providers, models and tools with 400s listing the options", async () => {
    const runtime = offlineRuntime();
    expect(await rejection(() => runtime.generate({ input: { text: "  " } }))).toMatchObject({
      statusCode: 400,
      details: { errors: [{ field: "input.text" }] },
    });
    expect(await rejection(() => runtime.generate({}))).toMatchObject({ statusCode: 400 });
    expect(await rejection(() => runtime.stream({ input: { text: "x" }, provider: "openai" }))).toMatchObject({
      statusCode: 400,
      code: "PROVIDER_NOT_CONFIGURED",
      details: { available: ["local"] },
    });
    expect(await rejection(() => runtime.generate({ input: { text: "x" }, model: "gpt-9" }))).toMatchObject({
      statusCode: 400,
      code: "MODEL_NOT_AVAILABLE",
      details: { available: ["echo"] },
    });
    expect(await rejection(() => runtime.generate({ input: { text: "x" }, tools: ["nope"] }))).toMatchObject({ statusCode: 400 });
  });

  it("stops a stream when the signal aborts", async () => {
    const controller = new AbortController();
    const events: DataStreamEvent[] = [];
    for await (const event of offlineRuntime().stream({ input: { text: "one two three four five six" } }, { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(events.filter((event) => event.type === "text-delta")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "error", data: { code: "STREAM_ABORTED" } });
  });

  it("embeds locally so that similar texts are closer", async () => {
    const runtime = offlineRuntime();
    const single = await runtime.embed({ text: "cats are lovely pets" });
    expect(single).toMatchObject({ provider: "local", model: "hashed-ngram-256", dimension: 256 });
    const many = await runtime.embedMany({ texts: ["cats are lovely pets", "cats are wonderful pets", "quarterly tax filing deadline"] });
    expect(many).toMatchObject({ count: 3, dimension: 256 });
    const [cats, similar, tax] = many.embeddings as [number[], number[], number[]];
    expect(cosineSimilarity(cats, similar)).toBeGreaterThan(cosineSimilarity(cats, tax));
    expect(await rejection(() => runtime.embedMany({ texts: [] }))).toMatchObject({ statusCode: 400 });
    expect(await rejection(() => runtime.embed({ text: "" }))).toMatchObject({ statusCode: 400 });
  });

  it("records each embedding call in the usage ledger with its input tokens; a refused one is not recorded", async () => {
    const runtime = offlineRuntime();
    const since = Date.now() - 60_000;
    await runtime.embed({ text: "cats are lovely pets" });
    await runtime.embedMany({ texts: ["cats are lovely pets", "quarterly tax filing deadline"] });
    await rejection(() => runtime.embed({ text: "" }));
    const report = await runtime.usage?.query({ since });
    const embeds = report?.entries.filter((entry) => entry.operation === "embed") ?? [];
    expect(embeds).toHaveLength(1);
    expect(embeds[0]).toMatchObject({ provider: "local", model: "hashed-ngram-256", calls: 2, failedCalls: 0, outputTokens: 0 });
    expect(embeds[0]?.inputTokens).toBeGreaterThan(0);
  });
});

describe("runtime memory", () => {
  it("records sessions and uses history on the next call (in memory)", async () => {
    const runtime = offlineRuntime();
    await runtime.generate({ input: { text: "My name is Ada" }, sessionId: "s1" });
    const second = await runtime.generate({ input: { text: "Who am I?" }, sessionId: "s1" });
    expect(second.content).toContain('Earlier in this session you said: "My name is Ada"');
    await collect(runtime.stream({ input: { text: "third" }, sessionId: "s1" }));
    expect(await runtime.memory.getSession("s1")).toMatchObject({ messageCount: 6 });
    const page = await runtime.memory.getMessages("s1", { limit: 2, offset: 4 });
    expect(page?.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(page?.messages[0]?.content).toBe("third");
  });

  it("keeps sessions in Redis across runtime instances and reports Redis health", async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const options = { redis: "redis://127.0.0.1:6379", redisKeyPrefix: keyPrefix };
    const first = createRuntime({ env: {}, ...options });
    await first.generate({ input: { text: "remember the number 42" }, sessionId: "durable" });
    expect(await first.health()).toMatchObject({ status: "ok", dependencies: { redis: { status: "ok", required: true } } });
    await first.close();

    const second = offlineRuntime(options);
    expect((await second.memory.listSessions()).map((session) => session.id)).toEqual(["durable"]);
    const answer = await second.generate({ input: { text: "what number?" }, sessionId: "durable" });
    expect(answer.content).toContain("remember the number 42");
    expect(await second.memory.deleteSession("durable")).toBe(true);
  });

  it("reports Redis down when it cannot be reached", async () => {
    const runtime = offlineRuntime({ redis: "redis://127.0.0.1:1", logger: silentLogger });
    const health = await runtime.health();
    expect(health.status).toBe("down");
    expect(health.dependencies.redis).toMatchObject({ status: "down", required: true });
  });
});
