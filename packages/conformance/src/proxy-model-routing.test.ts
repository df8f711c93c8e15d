import Anthropic from "@anthropic-ai/sdk";
import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY } from "@conduit-ai/proxy/testing";
import { createRuntime } from "@conduit-ai/runtime";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// Model routing: the `models` table maps public names to targets with ordered
// fallbacks; a 429 from the (fake) Anthropic upstream sends the call on to the runtime's `local`
// provider, and every answer names what served it in `x-conduit-model` — on every adapter.
const POOL_KEY = "sk-ant-conformance-routing";
const RATE_LIMITED = { status: 429, body: JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }) };
let fake: FakeAnthropic;
const runtime = createRuntime({ env: {} });
beforeAll(async () => {
  fake = await startFakeAnthropic();
  fake.credentials.add(POOL_KEY);
});
afterAll(async () => {
  await fake.close();
  await runtime.close();
});

forEachAdapter("proxy model routing", ({ start }) => {
  async function serve() {
    const proxy = createProxy(
      {
        enabled: true,
        upstream: { anthropic: fake.url },
        clientKeys: [CLIENT_KEY],
        accounts: [{ id: "acct", type: "api-key", apiKey: POOL_KEY }],
        maxRetries: 0,
        models: { fast: { target: "anthropic/claude-haiku-4-5", fallbacks: ["local"] }, quick: "anthropic/claude-haiku-4-5" },
      },
      { chatCompletions: chatCompletionsFor(runtime), runtime },
    );
    const server = await start({ setup: (adapter) => void registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true }) });
    return {
      openai: new OpenAI({ apiKey: CLIENT_KEY, baseURL: server.url("/v1"), maxRetries: 0, timeout: 20_000 }),
      anthropic: new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url(""), maxRetries: 0, timeout: 20_000 }),
      close: () => proxy.close(),
    };
  }
  const upstreamModel = () => (JSON.parse(fake.exchanges.at(-1)!.body.toString()) as { model: string }).model;

  it("resolves an alias to its target and names it, on chat completions, responses and messages", async () => {
    const { openai, anthropic, close } = await serve();
    try {
      const chat = await openai.chat.completions.create({ model: "quick", messages: [{ role: "user", content: "Hi" }] }).withResponse();
      expect(chat.response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
      expect(upstreamModel()).toBe("claude-haiku-4-5");
      const responses = await openai.responses.create({ model: "quick", input: "Hi" }).withResponse();
      expect(responses.response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
      const messages = await anthropic.messages
        .create({ model: "quick", max_tokens: 8, messages: [{ role: "user", content: "Hi" }] })
        .withResponse();
      expect(messages.response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
      expect(upstreamModel()).toBe("claude-haiku-4-5");
      expect((await openai.models.list()).data.map((model) => model.id)).toEqual(expect.arrayContaining(["fast", "quick"]));
    } finally {
      await close();
    }
  });

  it("falls back from an upstream 429 to the runtime's local provider, JSON and streamed", async () => {
    const { openai, anthropic, close } = await serve();
    try {
      fake.script(POOL_KEY, RATE_LIMITED);
      const chat = await openai.chat.completions.create({ model: "fast", messages: [{ role: "user", content: "ping" }] }).withResponse();
      expect(chat.response.headers.get("x-conduit-model")).toBe("local/echo");
      expect(chat.data.choices[0]!.message.content).toContain("ping");
      fake.script(POOL_KEY, RATE_LIMITED);
      const stream = await openai.responses.create({ model: "fast", input: "streamed", stream: true }).withResponse();
      expect(stream.response.headers.get("x-conduit-model")).toBe("local/echo");
      const types: string[] = [];
      for await (const event of stream.data) types.push(event.type);
      expect(types.at(-1)).toBe("response.completed");
      fake.script(POOL_KEY, RATE_LIMITED);
      const messages = await anthropic.messages
        .create({ model: "fast", max_tokens: 8, messages: [{ role: "user", content: "ping" }] })
        .withResponse();
      expect(messages.response.headers.get("x-conduit-model")).toBe("local/echo");
      expect(messages.data).toMatchObject({ type: "message", role: "assistant" });
    } finally {
      await close();
    }
  });

  it('answers model: "local" with the provider\'s default model', async () => {
    const { openai, close } = await serve();
    try {
      const local = await openai.chat.completions.create({ model: "local", messages: [{ role: "user", content: "hello" }] }).withResponse();
      expect(local.response.headers.get("x-conduit-model")).toBe("local/echo");
      expect(local.data.choices[0]!.message.content).toContain("hello");
    } finally {
      await close();
    }
  });
});
