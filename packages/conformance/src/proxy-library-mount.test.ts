import { type FakeAnthropic, fixedAnswer, startFakeAnthropic } from "@conduit-ai/fakes";
import { type ConduitProxy, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// `createProxy(config)` used as a library, with no options at all: every surface it can serve
// without a runtime is mounted — the Messages API and the OpenAI-compatible ones for Claude models.
const CLIENT_KEY = "library-mount-client-key-0123";
let fake: FakeAnthropic;
const proxies: ConduitProxy[] = [];
beforeAll(async () => {
  fake = await startFakeAnthropic({ anyCredential: true, answer: fixedAnswer(["Hello", " there"], { input: 9, output: 2 }) });
});
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
});
afterAll(() => fake.close());

const libraryProxy = () => {
  const proxy = createProxy({
    enabled: true,
    clientKeys: [CLIENT_KEY],
    upstream: { anthropic: fake.url },
    accounts: [{ id: "claude-1", type: "api-key", apiKey: "sk-ant-library-mount" }],
  });
  proxies.push(proxy);
  return proxy;
};

forEachAdapter("createProxy mounted as a library", ({ start }) => {
  it("serves /v1/chat/completions, /v1/responses and /v1/models for Claude models without a chatCompletions option", async () => {
    const server = await start({ setup: (adapter) => void registerProxyRoutes(adapter, libraryProxy()) });
    const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: server.url("/v1"), maxRetries: 0, timeout: 20_000 });
    const completion = await client.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] });
    expect(completion.choices[0]?.message.content).toBe("Hello there");
    const response = await client.responses.create({ model: "claude-sonnet-4-5", input: "Hi" });
    expect(response.output_text).toBe("Hello there");
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThan(0);
    // The Messages surface is still there, and a model no runtime can answer is OpenAI's 404 naming it, not a crash.
    const messages = await fetch(server.url("/v1/messages"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 16, messages: [{ role: "user", content: "Hi" }] }),
    });
    expect(messages.status).toBe(200);
    const refused = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(404);
    expect((refused as InstanceType<typeof OpenAI.APIError>).message).toContain("gpt-4o");
  });
});
