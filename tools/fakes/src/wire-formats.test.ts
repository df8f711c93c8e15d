import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "./anthropic/fake-anthropic.js";
import { codexStream, type FakeCodex, startFakeCodex } from "./codex/fake-codex.js";
import { answerByModelName } from "./model-turn.js";
import { type FakeOpenAI, startFakeOpenAI } from "./openai/fake-openai.js";

// Each fake is read by its vendor's official SDK: if a fake drifts from the wire format, the SDK says so here.

describe("startFakeOpenAI, read by the openai SDK", () => {
  let fake: FakeOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: "sk-test", baseURL: fake.baseURL, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  it("answers chat completions as JSON and as a stream with a usage chunk", async () => {
    const messages = [{ role: "user" as const, content: "hi" }];
    const completion = await client.chat.completions.create({ model: "gpt-4o-mini", messages });
    expect(completion.choices[0]?.message.content).toBe("Upstream heard 1 messages");
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", messages, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Upstream heard 1 messages");
    expect(chunks.at(-1)?.usage?.total_tokens).toBe(18);
    expect(fake.requests.at(-1)?.body).toMatchObject({ model: "gpt-4o-mini", stream: true });
  });

  it("calls the first declared tool in the first-tool scenario, and embeds", async () => {
    fake.scenario = "first-tool";
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }];
    const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }], tools });
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: "lookup" } });
    fake.scenario = "text";
    const embeddings = await client.embeddings.create({ model: "e", input: ["a", "b"] });
    expect(embeddings.data).toHaveLength(2);
  });

  it("fails as OpenAI does: 429 with retry-after, and a stream cut mid-answer", async () => {
    fake.scenario = "rate-limited";
    const refused = await client.chat.completions.create({ model: "m", messages: [] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after")).toBe("7");
    fake.scenario = "text";
    fake.answer = answerByModelName;
    const cut = await client.chat.completions.create({ model: "cut-3", messages: [], stream: true });
    await expect(
      (async () => {
        for await (const _ of cut);
      })(),
    ).rejects.toThrow();
  });
});

describe("startFakeAnthropic, read by the @anthropic-ai/sdk", () => {
  let fake: FakeAnthropic;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-ant-test");
    client = new Anthropic({ apiKey: "sk-ant-test", baseURL: fake.url, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  it("answers messages as JSON and as a stream, with thinking and tool calls when asked", async () => {
    const request = { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
    const message = await client.messages.create(request);
    expect(message.content).toMatchObject([{ type: "text", text: "Hello from the fake — ünïcödé ✓ 🚀" }]);
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 5 });
    const streamed = await client.messages
      .stream({
        ...request,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: [{ name: "weather", input_schema: { type: "object" } }],
      })
      .finalMessage();
    expect(streamed.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    expect(streamed.content[1]).toMatchObject({ name: "weather", input: { city: "Paris", unit: "c" } });
    expect(fake.exchanges).toHaveLength(2);
  });

  it("refuses unknown keys with 401 and plays scripted replies first", async () => {
    const stranger = new Anthropic({ apiKey: "sk-ant-other", baseURL: fake.url, maxRetries: 0 });
    const request = { model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user" as const, content: "hi" }] };
    await expect(stranger.messages.create(request)).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    fake.script("sk-ant-test", { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "busy" } } });
    await expect(client.messages.create(request)).rejects.toMatchObject({ status: 529 });
    expect((await client.messages.countTokens(request)).input_tokens).toBeGreaterThan(0);
  });
});

describe("startFakeCodex", () => {
  let fake: FakeCodex;
  beforeAll(async () => {
    fake = await startFakeCodex();
  });
  afterAll(() => fake.close());

  it("streams the Responses events, and refuses limited accounts with usage_limit_reached", async () => {
    const post = (account: string) =>
      fetch(`${fake.url}/backend-api/codex/responses`, { method: "POST", headers: { "chatgpt-account-id": account }, body: "{}" });
    expect(await (await post("acct-1")).text()).toBe(codexStream());
    fake.limited.add("acct-1");
    const limited = await post("acct-1");
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { type: "usage_limit_reached" } });
    expect(fake.requests.map((request) => request.headers["chatgpt-account-id"])).toEqual(["acct-1", "acct-1"]);
  });
});
