import { type UsageRecord, createRuntime } from "@conduit-ai/runtime";
import { type Logger, createAgentRoutes } from "@conduit-ai/server-core";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { answerByModelName, type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { forEachAdapter, sleep } from "../harness.js";

let provider: FakeOpenAI;
beforeAll(async () => {
  provider = await startFakeOpenAI({ answer: answerByModelName });
});
afterAll(() => provider.close());

function providerRuntime(records: UsageRecord[], logs: string[] = []) {
  const record = (level: string) => (object: object, message?: string) => logs.push(`${level}:${message}:${JSON.stringify(object)}`);
  const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  return createRuntime({
    env: {},
    openai: { baseURL: provider.baseURL, apiKey: "test-key", models: ["cut-3", "slow-200x20", "fast"] },
    maxRetries: 0,
    logger,
    onUsage: (usage) => records.push(usage),
  });
}

const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

forEachAdapter("faults: the provider", ({ start }) => {
  it("a provider cut mid-stream ends the stream with a final error event (PROVIDER_*), usage recorded", async () => {
    const records: UsageRecord[] = [];
    const runtime = providerRuntime(records);
    const server = await start({
      runtime,
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => adapter.registerRouteGroup(createAgentRoutes(runtime)),
    });
    const response = await post(server.url("/api/agent/stream"), { input: { text: "go" }, provider: "openai", model: "cut-3" });
    expect(response.status).toBe(200);
    const events: Array<{ event?: string; data: string }> = [];
    createParser({ onEvent: (event) => events.push(event) }).feed(await response.text());
    const types = events.map((event) => event.event);
    expect(types.filter((type) => type === "text-delta").length).toBeGreaterThanOrEqual(1);
    expect(types.at(-1)).toBe("error");
    // The cut arrives as PROVIDER_ERROR (a broken SSE body) or PROVIDER_UNAVAILABLE (a reset socket), depending on where it lands.
    expect(JSON.parse(events.at(-1)?.data ?? "{}").data.code).toMatch(/^PROVIDER_(ERROR|UNAVAILABLE)$/);
    await sleep(20);
    expect(records.at(-1)).toMatchObject({ provider: "openai", model: "cut-3", outcome: "error", usageReported: false });
    expect(records.at(-1)?.outputCharacters).toBeGreaterThan(0);
    await runtime.close();
  });

  it("a client disconnecting mid-stream cancels the upstream request (seen by the provider) and its usage is recorded and logged", async () => {
    const records: UsageRecord[] = [];
    const logs: string[] = [];
    const runtime = providerRuntime(records, logs);
    const server = await start({
      runtime,
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => adapter.registerRouteGroup(createAgentRoutes(runtime)),
    });
    const cancelledBefore = provider.cancelled;
    const controller = new AbortController();
    const response = await post(
      server.url("/api/agent/stream"),
      { input: { text: "go" }, provider: "openai", model: "slow-200x20", sessionId: "disconnect" },
      controller.signal,
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = "";
    while (!received.includes("text-delta")) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const deadline = Date.now() + 5_000;
    while ((provider.cancelled === cancelledBefore || records.length === 0) && Date.now() < deadline) await sleep(20);
    expect(provider.cancelled).toBe(cancelledBefore + 1);
    expect(records.at(-1)).toMatchObject({
      provider: "openai",
      model: "slow-200x20",
      sessionId: "disconnect",
      outcome: "aborted",
      usageReported: false,
    });
    expect(records.at(-1)?.outputCharacters).toBeGreaterThan(0);
    expect(logs.some((line) => line.startsWith("info:generation aborted: usage recorded"))).toBe(true);
    await runtime.close();
  });
});
