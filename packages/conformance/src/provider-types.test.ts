import { createChatCompletionsRoute, createClientCheck } from "@conduit-ai/proxy";
import { PROVIDER_CASES, type FakeServer } from "@conduit-ai/fakes";
import { type ProviderConfig, createRuntime } from "@conduit-ai/runtime";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { createParser } from "eventsource-parser";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// Every provider type of the runtime's `providers` config, each against the loopback fake of its
// vendor's wire, on /api/agent/generate, /api/agent/stream and /v1/chat/completions (the proxy's
// runtime target) with the model named `<provider>/<model>`.
const fakes = new Map<string, FakeServer>();
let runtime: ReturnType<typeof createRuntime>;
const nameOf = (type: string) => `team-${type}`;

beforeAll(async () => {
  const providers: Record<string, ProviderConfig> = {};
  for (const vendor of PROVIDER_CASES) {
    const fake = await vendor.start();
    fakes.set(vendor.type, fake);
    providers[nameOf(vendor.type)] = vendor.provider(fake) as ProviderConfig;
  }
  runtime = createRuntime({ env: {}, maxRetries: 0, providers });
  await runtime.loadProviders();
});
beforeEach(() => {
  for (const fake of fakes.values()) fake.scenario = "text";
});
afterAll(async () => {
  await runtime.close();
  await Promise.all([...fakes.values()].map((fake) => fake.close()));
});

async function sseEvents(response: Response): Promise<Array<{ event: string | undefined; data: Record<string, unknown> }>> {
  const events: Array<{ event: string | undefined; data: Record<string, unknown> }> = [];
  const parser = createParser({ onEvent: (message) => events.push({ event: message.event, data: JSON.parse(message.data) }) });
  parser.feed(await response.text());
  return events;
}

forEachAdapter("provider types on the agent and chat completions surfaces", ({ start }) => {
  const boot = () =>
    start({
      runtime,
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        registerAllRoutes(adapter);
        adapter.registerRoute(
          createChatCompletionsRoute({
            runtime,
            isClientAllowed: createClientCheck(["client-key"]),
            sendMessages: () => Promise.reject(new Error("no Claude pool here")),
          }),
        );
      },
    });

  it.each(PROVIDER_CASES)("$type: /api/agent/generate answers '<provider>/<model>' with the vendor's usage", async (vendor) => {
    const server = await boot();
    const response = await fetch(server.url("/api/agent/generate"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "hi" }, model: `${nameOf(vendor.type)}/${vendor.model}` }),
    });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({
      content: `${vendor.speaker} heard 1 messages`,
      provider: nameOf(vendor.type),
      model: vendor.model,
      usage: { outputTokens: 8, ...vendor.details },
    });
  });

  it.each(PROVIDER_CASES)("$type: /api/agent/stream sends text deltas, tool activity and a finish with the usage", async (vendor) => {
    const server = await boot();
    const model = `${nameOf(vendor.type)}/${vendor.model}`;
    const streamed = await sseEvents(
      await fetch(server.url("/api/agent/stream"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { text: "hi" }, model }),
      }),
    );
    expect(
      streamed
        .filter((event) => event.event === "text-delta")
        .map((event) => (event.data.data as { delta: string }).delta)
        .join(""),
    ).toBe(`${vendor.speaker} heard 1 messages`);
    expect(streamed.at(-1)).toMatchObject({ event: "finish", data: { data: { usage: { outputTokens: 8, ...vendor.details } } } });
    fakes.get(vendor.type)!.scenario = "tool";
    const tools = await sseEvents(
      await fetch(server.url("/api/agent/stream"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { text: "multiply" }, model, tools: ["calculator"] }),
      }),
    );
    const types = tools.map((event) => event.event);
    expect(types).toContain("tool-call");
    expect(types.indexOf("tool-result")).toBeGreaterThan(types.indexOf("tool-call"));
    expect(types.at(-1)).toBe("finish");
  });

  it.each(PROVIDER_CASES)("$type: /v1/chat/completions answers '<provider>/<model>' as JSON and as a stream", async (vendor) => {
    const server = await boot();
    const client = new OpenAI({ apiKey: "client-key", baseURL: server.url("/v1"), maxRetries: 0 });
    const model = `${nameOf(vendor.type)}/${vendor.model}`;
    const completion = await client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]?.message.content).toBe(`${vendor.speaker} heard 1 messages`);
    expect(completion.usage).toMatchObject({ completion_tokens: 8 });
    const chunks = [];
    for await (const chunk of await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    }))
      chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe(`${vendor.speaker} heard 1 messages`);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(8);
  });

  it.each(PROVIDER_CASES)(
    "$type: a vendor rate limit is a 429 with Retry-After on both surfaces, in each surface's shape",
    async (vendor) => {
      const server = await boot();
      fakes.get(vendor.type)!.scenario = "rate-limited";
      const model = `${nameOf(vendor.type)}/${vendor.model}`;
      const agent = await fetch(server.url("/api/agent/generate"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { text: "hi" }, model }),
      });
      expect(agent.status).toBe(429);
      expect(agent.headers.get("retry-after")).toBe("7");
      expect(await agent.json()).toMatchObject({ error: { code: "PROVIDER_RATE_LIMITED", category: "RATE_LIMIT" } });
      const chat = await fetch(server.url("/v1/chat/completions"), {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer client-key" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(chat.status).toBe(429);
      expect(await chat.json()).toMatchObject({ error: { type: "rate_limit_error", code: "PROVIDER_RATE_LIMITED" } });
    },
  );
});
