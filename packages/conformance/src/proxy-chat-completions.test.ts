import { chatCompletionsFor, createChatCompletionsRoute, createClientCheck, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { createRuntime } from "@conduit-ai/runtime";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FakeAnthropic, fixedAnswer, startFakeAnthropic } from "@conduit-ai/fakes";
import { forEachAdapter } from "./harness.js";

// POST /v1/chat/completions (docs/spec.md "Proxy surfaces") driven by the official openai client:
// Claude models through a sendMessages that forwards to a fake Messages API, others by the runtime.
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

const route = () =>
  createChatCompletionsRoute({
    runtime,
    isClientAllowed: createClientCheck(["k"]),
    sendMessages: (body, init) =>
      fetch(`${fake.url}/v1/messages`, {
        method: "POST",
        body: body as Uint8Array<ArrayBuffer>,
        headers: init.headers,
        signal: init.signal,
      }),
  });

forEachAdapter("proxy chat completions", ({ start }) => {
  const clientFor = (server: { url(path: string): string }) =>
    new OpenAI({ apiKey: "k", baseURL: server.url("/v1"), maxRetries: 0, timeout: 20_000 });

  it("answers a Claude model through the Messages API, usage with cached tokens", async () => {
    const server = await start({ setup: (adapter) => adapter.registerRoute(route()) });
    const completion = await clientFor(server).chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [
        { role: "system", content: "S" },
        { role: "user", content: "Hi" },
      ],
    });
    expect(completion.choices[0]).toMatchObject({ message: { role: "assistant", content: "Hello there" }, finish_reason: "stop" });
    expect(completion.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 2,
      total_tokens: 14,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(fake.requests.at(-1)!.body).toMatchObject({ system: "S", max_tokens: 4096 });
  });

  it("streams chunks ending with finish, usage and [DONE]", async () => {
    const server = await start({ setup: (adapter) => adapter.registerRoute(route()) });
    const stream = await clientFor(server).chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Hello there");
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage?.total_tokens).toBe(14);
    const raw = await fetch(server.url("/v1/chat/completions"), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: JSON.stringify({ model: "claude-x", stream: true, messages: [{ role: "user", content: "Hi" }] }),
    });
    expect((await raw.text()).endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("loops Claude models through the proxy's account pool (createProxy + chatCompletionsFor)", async () => {
    const proxy = createProxy(
      {
        enabled: true,
        upstream: { anthropic: fake.url },
        clientKeys: ["pool-client-key-0123456789"],
        accounts: [{ id: "acct", type: "api-key", apiKey: "sk-ant-pool" }],
      },
      { chatCompletions: chatCompletionsFor(runtime) },
    );
    try {
      const server = await start({
        setup: (adapter) => void registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true }),
      });
      const client = new OpenAI({ apiKey: "pool-client-key-0123456789", baseURL: server.url("/v1"), maxRetries: 0 });
      const completion = await client.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] });
      expect(completion.choices[0]!.message.content).toBe("Hello there");
      const rows = await proxy.pool.rows();
      await expect.poll(async () => (await proxy.pool.rows())[0]!.usage.totals.inputTokens).toBeGreaterThan(0);
      expect(rows[0]!.id).toBe("acct");
    } finally {
      await proxy.close();
    }
  });

  it("answers other models with the runtime's local provider", async () => {
    const server = await start({ setup: (adapter) => adapter.registerRoute(route()) });
    const completion = await clientFor(server).chat.completions.create({ model: "echo", messages: [{ role: "user", content: "ping" }] });
    expect(completion.choices[0]!.message.content).toContain("ping");
  });

  it("refuses a caller without a client key with 401 in OpenAI's error shape", async () => {
    const server = await start({ setup: (adapter) => adapter.registerRoute(route()) });
    const before = fake.requests.length;
    const response = await fetch(server.url("/v1/chat/completions"), {
      method: "POST",
      headers: { "x-api-key": "nope" },
      body: JSON.stringify({ model: "claude-x", messages: [{ role: "user", content: "x" }] }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    expect(fake.requests.length).toBe(before);
  });

  it("answers malformed JSON and invalid fields with 400 in OpenAI's error shape", async () => {
    const server = await start({ setup: (adapter) => adapter.registerRoute(route()) });
    const malformed = await fetch(server.url("/v1/chat/completions"), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const invalid = await clientFor(server)
      .chat.completions.create({ model: "claude-x", messages: [] })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
    expect((invalid as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages");
  });
});
