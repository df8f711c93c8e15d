import Anthropic from "@anthropic-ai/sdk";
import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { createRuntime } from "@conduit-ai/runtime";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FakeAnthropic, fixedAnswer, startFakeAnthropic } from "@conduit-ai/fakes";
import { forEachAdapter } from "./harness.js";

// The vendor surfaces real clients call besides Messages and Chat Completions:
// /v1/responses, /v1/models, /v1/embeddings and /v1/messages/count_tokens, mounted by createProxy
// with chatCompletionsFor(runtime), driven by the official openai and Anthropic clients.
const CLIENT_KEY = "conformance-client-key-0123";
let fake: FakeAnthropic;
const runtime = createRuntime({ env: {} });
beforeAll(async () => {
  // Any key; "Hello there" with 9 input tokens (3 more read from cache) and 2 output; 42 counted tokens.
  fake = await startFakeAnthropic({
    anyCredential: true,
    answer: fixedAnswer(["Hello", " there"], { input: 9, output: 2, cacheRead: 3 }),
    countTokens: () => 42,
  });
});
afterAll(async () => {
  await fake.close();
  await runtime.close();
});

forEachAdapter("proxy OpenAI-compatible surfaces", ({ start }) => {
  async function serve() {
    const proxy = createProxy(
      {
        enabled: true,
        upstream: { anthropic: fake.url },
        clientKeys: [CLIENT_KEY],
        accounts: [{ id: "acct", type: "api-key", apiKey: "sk-ant-pool" }],
      },
      { chatCompletions: chatCompletionsFor(runtime) },
    );
    const server = await start({ setup: (adapter) => void registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true }) });
    return {
      server,
      openai: new OpenAI({ apiKey: CLIENT_KEY, baseURL: server.url("/v1"), maxRetries: 0, timeout: 20_000 }),
      anthropic: new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url(""), maxRetries: 0, timeout: 20_000 }),
      close: () => proxy.close(),
    };
  }

  it("answers /v1/responses for a Claude model through the pool, JSON and streamed, and continues it", async () => {
    const { openai, close } = await serve();
    try {
      const first = await openai.responses.create({ model: "claude-sonnet-4-5", instructions: "S", input: "Hi" });
      expect(first.output_text).toBe("Hello there");
      expect(first.usage).toMatchObject({ input_tokens: 12, input_tokens_details: { cached_tokens: 3 }, output_tokens: 2 });
      expect(fake.requests.at(-1)!.body).toMatchObject({
        system: "S",
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      });
      const stream = openai.responses.stream({ model: "claude-sonnet-4-5", input: "Again", previous_response_id: first.id });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect((await stream.finalResponse()).output_text).toBe("Hello there");
      expect(types[0]).toBe("response.created");
      expect(types.at(-1)).toBe("response.completed");
      expect((fake.requests.at(-1)!.body.messages as unknown[]).length).toBe(3);
    } finally {
      await close();
    }
  });

  it("translates Codex's namespace and hosted web_search tools and a JSON Schema text format for Claude", async () => {
    const { openai, close } = await serve();
    try {
      const schema = { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false };
      const response = await openai.responses.create({
        model: "claude-sonnet-4-5",
        input: [
          { role: "user", content: "Spawn an agent" },
          { type: "function_call", namespace: "multi_agent_v1", name: "spawn", call_id: "toolu_1", arguments: "{}" },
          { type: "function_call_output", call_id: "toolu_1", output: "agent 7" },
        ],
        tools: [
          {
            type: "namespace",
            name: "multi_agent_v1",
            description: "Agents",
            tools: [{ type: "function", name: "spawn", parameters: { type: "object" } }],
          },
          { type: "web_search" },
        ],
        text: { format: { type: "json_schema", name: "answer", schema } },
      } as never);
      expect(response.status).toBe("completed");
      const sent = fake.requests.at(-1)!.body as { tools: unknown[]; messages: Array<{ content: unknown[] }>; output_config: unknown };
      expect(sent.tools).toEqual([
        { name: "multi_agent_v1__spawn", input_schema: { type: "object" } },
        { type: "web_search_20250305", name: "web_search" },
      ]);
      expect(sent.messages[1]?.content[0]).toMatchObject({ type: "tool_use", name: "multi_agent_v1__spawn" });
      expect(sent.output_config).toEqual({ format: { type: "json_schema", schema } });
    } finally {
      await close();
    }
  });

  it("answers /v1/responses for the local provider by name", async () => {
    const { openai, close } = await serve();
    try {
      expect((await openai.responses.create({ model: "local", input: "ping" })).output_text).toContain("ping");
    } finally {
      await close();
    }
  });

  it("lists models in OpenAI's shape, and in Anthropic's with anthropic-version", async () => {
    const { openai, anthropic, close } = await serve();
    try {
      const openaiIds = (await openai.models.list()).data.map((model) => model.id);
      expect(openaiIds).toEqual(expect.arrayContaining(["claude-sonnet-4-5", "local"]));
      const page = await anthropic.models.list();
      expect(page.data[0]).toMatchObject({ type: "model", id: "claude-opus-4-5" });
      expect(page.has_more).toBe(false);
      expect(await openai.models.retrieve("nope").catch((error) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    } finally {
      await close();
    }
  });

  it("embeds with the runtime in OpenAI's shape", async () => {
    const { openai, close } = await serve();
    try {
      const result = await openai.embeddings.create({ model: "local", input: ["a", "b"], encoding_format: "float" });
      expect(result.data.map((item) => item.index)).toEqual([0, 1]);
      expect(result.data[0]!.embedding.length).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it("counts tokens: Claude through the pool with ?beta=true kept, others estimated", async () => {
    const { anthropic, server, close } = await serve();
    try {
      expect(
        (await anthropic.messages.countTokens({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] })).input_tokens,
      ).toBe(42);
      const beta = await fetch(server.url("/v1/messages/count_tokens?beta=true"), {
        method: "POST",
        headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] }),
      });
      expect(await beta.json()).toEqual({ input_tokens: 42 });
      expect(fake.requests.at(-1)?.path).toBe("/v1/messages/count_tokens?beta=true");
      const estimate = await fetch(server.url("/v1/messages/count_tokens"), {
        method: "POST",
        headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json" },
        body: JSON.stringify({ model: "local", messages: [{ role: "user", content: "Hello, world!" }] }),
      });
      expect(estimate.headers.get("x-conduit-token-count")).toBe("estimate");
      expect(await estimate.json()).toEqual({ input_tokens: 7 });
    } finally {
      await close();
    }
  });
});
