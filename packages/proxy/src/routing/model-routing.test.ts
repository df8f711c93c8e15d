import Anthropic from "@anthropic-ai/sdk";
import { createRuntime } from "@conduit-ai/runtime";
import type { Gate, GateUsage } from "@conduit-ai/server-core";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topLevelModelOf, withModel } from "../wire/anthropic-messages/body-model.js";
import { parseProxyConfig } from "../config.js";
import { chatCompletionsFor } from "../surfaces/openai-surfaces.js";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../testing/proxy-server.js";
import { createModelTable } from "./model-table.js";

const POOL_KEY = "sk-ant-routing";
const RATE_LIMITED = { status: 429, body: JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }) };
const models = {
  fast: { target: "anthropic/claude-haiku-4-5", fallbacks: ["local"] },
  echo: "local/echo",
  twice: { target: "anthropic/claude-haiku-4-5", fallbacks: ["anthropic/claude-sonnet-4-5", "local"] },
};

let fake: FakeAnthropic;
let server: ProxyServer;
let runtime: ReturnType<typeof createRuntime>;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  fake.credentials.add(POOL_KEY);
  runtime = createRuntime({ env: {} });
  server = await startProxyServer(
    { upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: POOL_KEY }], models, maxRetries: 0 },
    { chatCompletions: chatCompletionsFor(runtime), runtime },
  );
  openai = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => {
  await server.stop();
  await fake.close();
  await runtime.close();
});

const lastModelUpstream = () => (JSON.parse(fake.exchanges.at(-1)!.body.toString()) as { model: string }).model;

describe("the models table", () => {
  it("parses plain and fallback entries and names each target", () => {
    const table = createModelTable(parseProxyConfig({ models }).models);
    expect(table.aliases()).toEqual(["fast", "echo", "twice"]);
    expect(table.targetsFor("fast")).toEqual([
      { kind: "anthropic", model: "claude-haiku-4-5", name: "anthropic/claude-haiku-4-5" },
      { kind: "runtime", model: "local", name: "local" },
    ]);
    expect(table.targetsFor("claude-opus-4-5")).toEqual([
      { kind: "anthropic", model: "claude-opus-4-5", name: "anthropic/claude-opus-4-5" },
    ]);
    expect(table.configured("gpt-4o")).toBeUndefined();
    expect(() => parseProxyConfig({ models: { bad: { target: "local", fallback: [] } } })).toThrow(/proxy\.models\.bad/);
  });

  it("reads the body's top-level model without parsing the rest", () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    expect(topLevelModelOf(encode('{"model":"fast","messages":[]}'))).toBe("fast");
    expect(topLevelModelOf(encode('{ "messages": [{"model":"inner","c":"a\\"}"}], "metadata": {"model": 1}, "model" : "late" }'))).toBe(
      "late",
    );
    expect(topLevelModelOf(encode('{"mod\\u0065l":"escaped"}'))).toBe("escaped");
    expect(topLevelModelOf(encode('{"messages":[]}'))).toBeUndefined();
    expect(topLevelModelOf(encode("not json"))).toBeUndefined();
    expect(JSON.parse(new TextDecoder().decode(withModel(encode('{"model":"fast","x":1}'), "claude-haiku-4-5")))).toEqual({
      model: "claude-haiku-4-5",
      x: 1,
    });
  });
});

describe("routing on the OpenAI surfaces", () => {
  it("sends an alias to its target and names it in x-conduit-model", async () => {
    const { data, response } = await openai.chat.completions
      .create({ model: "fast", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
    expect(lastModelUpstream()).toBe("claude-haiku-4-5");
    expect(data.choices[0]!.message.content).toBeTruthy();
  });

  it("falls back to the runtime's local provider when the pool answers 429, JSON and streamed", async () => {
    fake.script(POOL_KEY, RATE_LIMITED);
    const json = await openai.chat.completions.create({ model: "fast", messages: [{ role: "user", content: "ping" }] }).withResponse();
    expect(json.response.headers.get("x-conduit-model")).toBe("local/echo");
    expect(json.data.choices[0]!.message.content).toContain("ping");
    fake.script(POOL_KEY, RATE_LIMITED);
    const stream = await openai.chat.completions
      .create({ model: "fast", stream: true, messages: [{ role: "user", content: "pong" }] })
      .withResponse();
    expect(stream.response.headers.get("x-conduit-model")).toBe("local/echo");
    let text = "";
    for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toContain("pong");
  });

  it("tries fallbacks in order: a second Claude model before the runtime", async () => {
    fake.script(POOL_KEY, RATE_LIMITED);
    const { response } = await openai.chat.completions
      .create({ model: "twice", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(response.headers.get("x-conduit-model")).toBe("anthropic/claude-sonnet-4-5");
    expect(lastModelUpstream()).toBe("claude-sonnet-4-5");
  });

  it('answers model: "local" with the provider\'s default model, and a plain alias to a runtime model', async () => {
    const local = await openai.chat.completions.create({ model: "local", messages: [{ role: "user", content: "hello" }] }).withResponse();
    expect(local.response.headers.get("x-conduit-model")).toBe("local/echo");
    const echo = await openai.responses.create({ model: "echo", input: "hello" }).withResponse();
    expect(echo.response.headers.get("x-conduit-model")).toBe("local/echo");
    expect(echo.data.output_text).toContain("hello");
  });

  it("falls back on /v1/responses, streamed, with the header set before the stream", async () => {
    fake.script(POOL_KEY, { status: 529, body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "busy" } }) });
    const { data, response } = await openai.responses.create({ model: "fast", input: "streamed", stream: true }).withResponse();
    expect(response.headers.get("x-conduit-model")).toBe("local/echo");
    const types: string[] = [];
    for await (const event of data) types.push(event.type);
    expect(types.at(-1)).toBe("response.completed");
  });

  it("keeps the last target's failure when every target fails", async () => {
    fake.script(POOL_KEY, RATE_LIMITED);
    const failure = await openai.chat.completions
      .create({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "Hi" }] })
      .catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it("lists the aliases in /v1/models", async () => {
    const ids = (await openai.models.list()).data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(["fast", "echo", "twice"]));
  });
});

describe("routing on /v1/messages", () => {
  it("rewrites an alias to its target and leaves other bodies byte for byte", async () => {
    const { response } = await anthropic.messages
      .create({ model: "fast", max_tokens: 16, messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(response.headers.get("x-conduit-model")).toBe("anthropic/claude-haiku-4-5");
    expect(lastModelUpstream()).toBe("claude-haiku-4-5");
    const body = '{"model":"claude-opus-4-5",  "max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}';
    const direct = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body,
    });
    expect(direct.headers.get("x-conduit-model")).toBe("anthropic/claude-opus-4-5");
    await direct.arrayBuffer();
    expect(fake.exchanges.at(-1)!.body.toString()).toBe(body);
  });

  it("falls back from a 429 to the local provider in the Messages wire format, JSON and streamed", async () => {
    fake.script(POOL_KEY, RATE_LIMITED);
    const json = await anthropic.messages
      .create({ model: "fast", max_tokens: 16, system: "S", messages: [{ role: "user", content: "ping" }] })
      .withResponse();
    expect(json.response.headers.get("x-conduit-model")).toBe("local/echo");
    expect(json.data).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn" });
    expect(json.data.content[0]).toMatchObject({ type: "text" });
    fake.script(POOL_KEY, RATE_LIMITED);
    const stream = anthropic.messages.stream({ model: "fast", max_tokens: 16, messages: [{ role: "user", content: "streamed ping" }] });
    const message = await stream.finalMessage();
    expect(JSON.stringify(message.content)).toContain("streamed ping");
    expect(message.stop_reason).toBe("end_turn");
  });
});

describe("routing with a gate", () => {
  it("settles once, with what served the call: a replaced 429 is not the call's usage", async () => {
    const settled: GateUsage[] = [];
    const gate: Gate = {
      admit: async () => ({
        identity: { keyId: "k", name: "k" },
        settle: async (usage) => void settled.push(usage),
        release: async () => {},
      }),
    };
    const gated = await startProxyServer(
      { upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: POOL_KEY }], models, maxRetries: 0 },
      { chatCompletions: chatCompletionsFor(runtime), runtime, gate },
    );
    try {
      const client = new OpenAI({ apiKey: "virtual-key-0123456789", baseURL: `${gated.url}/v1`, maxRetries: 0 });
      fake.script(POOL_KEY, RATE_LIMITED);
      await client.chat.completions.create({ model: "twice", messages: [{ role: "user", content: "Hi" }] });
      await expect.poll(() => settled.length).toBe(1);
      expect(settled[0]).toMatchObject({ status: 200, model: "claude-sonnet-4-5", outputTokens: 7 });
      fake.script(POOL_KEY, RATE_LIMITED);
      await client.chat.completions.create({ model: "fast", messages: [{ role: "user", content: "Hi" }] });
      await expect.poll(() => settled.length).toBe(2);
      expect(settled[1]).toMatchObject({ status: 200, target: "runtime/local/echo" });
      // On /v1/messages too, a runtime answer settles with the tokens the provider reported (not the reservation).
      const messages = async (stream: boolean) => {
        fake.script(POOL_KEY, RATE_LIMITED);
        const response = await fetch(`${gated.url}/v1/messages`, {
          method: "POST",
          headers: { "x-api-key": "virtual-key-0123456789", "content-type": "application/json", "anthropic-version": "2023-06-01" },
          body: JSON.stringify({ model: "fast", max_tokens: 512, stream, messages: [{ role: "user", content: "count me" }] }),
        });
        const text = await response.text();
        return stream ? Number([...text.matchAll(/"output_tokens":(\d+)/g)].at(-1)?.[1]) : JSON.parse(text).usage.output_tokens;
      };
      for (const [stream, index] of [
        [false, 2],
        [true, 3],
      ] as const) {
        const reported = await messages(stream);
        await expect.poll(() => settled.length).toBe(index + 1);
        expect(settled[index]).toMatchObject({ status: 200, target: "runtime/local/echo", outputTokens: reported });
        expect(reported).toBeLessThan(512);
      }
    } finally {
      await gated.stop();
    }
  });
});

describe("routing when every account is cooling", () => {
  it("falls back to the next target while the pool answers its own 429", async () => {
    const cooling = await startProxyServer(
      {
        upstream: { anthropic: fake.url },
        accounts: [
          { id: "one", type: "api-key", apiKey: POOL_KEY },
          { id: "two", type: "api-key", apiKey: `${POOL_KEY}-2` },
        ],
        models,
        maxRetries: 0,
      },
      { chatCompletions: chatCompletionsFor(runtime), runtime },
    );
    fake.credentials.add(`${POOL_KEY}-2`);
    try {
      const limited = { ...RATE_LIMITED, headers: { "retry-after": "600" } };
      fake.script(POOL_KEY, limited);
      fake.script(`${POOL_KEY}-2`, limited);
      const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${cooling.url}/v1`, maxRetries: 0 });
      const first = await client.chat.completions.create({ model: "fast", messages: [{ role: "user", content: "a" }] }).withResponse();
      expect(first.response.headers.get("x-conduit-model")).toBe("local/echo");
      // Both accounts now cool: the pool answers 429 itself without calling upstream, and the call still completes.
      const calls = fake.exchanges.length;
      const second = await client.chat.completions.create({ model: "fast", messages: [{ role: "user", content: "b" }] }).withResponse();
      expect(second.response.headers.get("x-conduit-model")).toBe("local/echo");
      expect(fake.exchanges.length).toBe(calls);
      expect((await cooling.proxy.pool.rows()).map((row) => row.status)).toEqual(["cooling", "cooling"]);
    } finally {
      await cooling.stop();
    }
  });
});
