import { createServer } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import { createRuntime } from "@conduit-ai/runtime";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatCompletionsFor } from "../surfaces/openai-surfaces.js";
import { type FakeAnthropic, startFakeAnthropic, listenOnLoopback } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../testing/proxy-server.js";

// A runtime target first (an OpenAI-compatible provider that answers 429), Claude after it: the
// fallback happens before any byte reached the client, streams included — the runtime stream is
// held back until the provider answered or failed.
const POOL_KEY = "sk-ant-runtime-fallback";

let fake: FakeAnthropic;
let provider: { url: string; calls: number; close(): Promise<void> };
let runtime: ReturnType<typeof createRuntime>;
let server: ProxyServer;
let openai: OpenAI;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  fake.credentials.add(POOL_KEY);
  const counter = { calls: 0 };
  const { url, close } = await listenOnLoopback(
    createServer((request, response) => {
      counter.calls++;
      request.resume();
      response
        .writeHead(429, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }));
    }),
  );
  provider = {
    url,
    close,
    get calls() {
      return counter.calls;
    },
  };
  runtime = createRuntime({ env: {}, openai: { baseURL: `${url}/v1`, apiKey: "test-key", models: ["gpt-4o-mini"] }, maxRetries: 0 });
  server = await startProxyServer(
    {
      upstream: { anthropic: fake.url },
      accounts: [{ id: "a", type: "api-key", apiKey: POOL_KEY }],
      models: { sturdy: { target: "openai/gpt-4o-mini", fallbacks: ["anthropic/claude-haiku-4-5"] } },
    },
    { chatCompletions: chatCompletionsFor(runtime), runtime },
  );
  openai = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server.stop();
  await fake.close();
  await provider.close();
  await runtime.close();
});

describe("a runtime target answering 429 falls back to Claude", () => {
  it("on /v1/chat/completions, JSON and streamed", async () => {
    const calls = provider.calls;
    const json = await openai.chat.completions.create({ model: "sturdy", messages: [{ role: "user", content: "Hi" }] }).withResponse();
    expect(json.response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
    expect(json.data.choices[0]!.message.content).toBe("Hello from the fake — ünïcödé ✓ 🚀");
    const stream = await openai.chat.completions
      .create({ model: "sturdy", stream: true, messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(stream.response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
    let text = "";
    for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Hello from the fake — ünïcödé ✓ 🚀");
    expect(provider.calls).toBeGreaterThanOrEqual(calls + 2);
  });

  it("on /v1/responses, streamed", async () => {
    const { data, response } = await openai.responses.create({ model: "sturdy", input: "Hi", stream: true }).withResponse();
    expect(response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
    let text = "";
    for await (const event of data) if (event.type === "response.output_text.delta") text += event.delta;
    expect(text).toBe("Hello from the fake — ünïcödé ✓ 🚀");
  });

  it("on /v1/messages, streamed", async () => {
    const anthropic = new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url, maxRetries: 0 });
    const { data, response } = await anthropic.messages
      .create({ model: "sturdy", max_tokens: 64, stream: true, messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
    let text = "";
    for await (const event of data) if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    expect(text).toBe("Hello from the fake — ünïcödé ✓ 🚀");
  });

  it("keeps the provider's 429 when it is the last target", async () => {
    const failure = await openai.chat.completions
      .create({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "Hi" }] })
      .then(async (stream) => {
        for await (const _chunk of stream) {
          // drained: the error arrives in the stream
        }
      })
      .catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
  });
});
