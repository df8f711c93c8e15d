import { createAdapter } from "@conduit-ai/adapter-hono";
import { createRuntime } from "@conduit-ai/runtime";
import type { BaseServerAdapter } from "@conduit-ai/server-core";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, fixedAnswer, startFakeAnthropic, textMessage, textStreamEvents } from "@conduit-ai/fakes";
import { forwardTo } from "../../testing/forward-to.js";
import { createClientCheck } from "../../admission/client-auth.js";
import { createProxy, registerProxyRoutes } from "../../proxy.js";
import { createChatCompletionsRoute } from "./chat-completions-route.js";
import { chatCompletionsFor } from "../openai-surfaces.js";

// A real Conduit server on loopback whose sendMessages forwards to a fake Messages API,
// driven by the official `openai` client.
let fake: FakeAnthropic;
let adapter: BaseServerAdapter<unknown>;
let runtime: ReturnType<typeof createRuntime>;
let client: OpenAI;
let baseUrl: string;

beforeAll(async () => {
  // Any key; "Hello there" unless a test queues its own reply.
  fake = await startFakeAnthropic({ anyCredential: true, answer: fixedAnswer(["Hello", " there"], { input: 12, output: 5 }) });
  runtime = createRuntime({ env: {} });
  adapter = createAdapter(runtime, { port: 0, host: "127.0.0.1", logging: { enabled: false }, bodyParser: { limit: 1024 * 1024 } });
  adapter.registerRoute(
    createChatCompletionsRoute({
      sendMessages: forwardTo(fake),
      runtime,
      isClientAllowed: createClientCheck(["client-key"]),
      forwardHeaders: ["x-conduit-session"],
    }),
  );
  await adapter.start();
  baseUrl = `http://127.0.0.1:${adapter.address()?.port}`;
  client = new OpenAI({ apiKey: "client-key", baseURL: `${baseUrl}/v1`, maxRetries: 0, timeout: 20_000 });
});
afterAll(async () => {
  await adapter.stop();
  await runtime.close();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const lastSent = () => fake.requests.at(-1)!.body;

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of stream) all.push(item);
  return all;
}

function toolUseStream(): Array<{ event: string; data: unknown }> {
  const start = textStreamEvents([])[0]!;
  const block = (index: number, id: string, name: string, fragments: string[]) => [
    {
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } },
    },
    ...fragments.map((partial_json) => ({
      event: "content_block_delta",
      data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } },
    })),
    { event: "content_block_stop", data: { type: "content_block_stop", index } },
  ];
  return [
    start,
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Checking." } } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    ...block(1, "toolu_1", "get_weather", ['{"city":', ' "Paris"}']),
    ...block(2, "toolu_2", "get_time", ['{"tz":"CET"', "}"]),
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 30 } } },
    { event: "message_stop", data: { type: "message_stop" } },
  ];
}

describe("POST /v1/chat/completions for Claude models", () => {
  it("answers a chat completion translated from the Messages API", async () => {
    const completion = await client.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: "Answer in English." },
        { role: "user", content: "Hi" },
      ],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices[0]!.message).toMatchObject({ role: "assistant", content: "Hello there" });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
    expect(lastSent()).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: "Be brief.\n\nAnswer in English.",
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    });
    expect(fake.requests.at(-1)!.headers["anthropic-version"]).toBe("2023-06-01");
    // The client's key is Conduit's business, never the upstream's.
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it("sends sampling options, stop sequences, images, tools and the tool conversation", async () => {
    await client.chat.completions.create({
      model: "claude-sonnet-4-5",
      max_completion_tokens: 300,
      stop: ["END"],
      temperature: 1.5,
      top_p: 0.9,
      user: "user-7",
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
          },
        },
      ],
      tool_choice: "required",
      parallel_tool_calls: false,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "Sunny" },
        { role: "user", content: "Thanks" },
      ],
    });
    expect(lastSent()).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 300,
      stop_sequences: ["END"],
      temperature: 1,
      top_p: 0.9,
      metadata: { user_id: "user-7" },
      tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "Sunny" },
            { type: "text", text: "Thanks" },
          ],
        },
      ],
    });
  });

  it("passes anthropic-beta and the configured session header on, never the client's key", async () => {
    await client.chat.completions.create(
      { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }] },
      { headers: { "anthropic-beta": "beta-1", "x-conduit-session": "conv-9", "x-other": "no" } },
    );
    const headers = fake.requests.at(-1)!.headers;
    expect(headers["anthropic-beta"]).toBe("beta-1");
    expect(headers["x-conduit-session"]).toBe("conv-9");
    expect(headers["x-other"]).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain("client-key");
  });

  it("names one function in tool_choice", async () => {
    await client.chat.completions.create({
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "x" }],
      tools: [{ type: "function", function: { name: "f" } }],
      tool_choice: { type: "function", function: { name: "f" } },
    });
    expect(lastSent()).toMatchObject({
      tools: [{ name: "f", input_schema: { type: "object", properties: {} } }],
      tool_choice: { type: "tool", name: "f" },
    });
  });

  it("returns tool_use blocks as tool_calls with finish_reason tool_calls", async () => {
    fake.reply({
      body: textMessage("", {
        content: [{ type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Oslo" } }],
        stop_reason: "tool_use",
      }),
    });
    const completion = await client.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Weather?" }],
      tools: [{ type: "function", function: { name: "get_weather" } }],
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: "toolu_9", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
    ]);
  });

  it.each([
    ["max_tokens", "length"],
    ["stop_sequence", "stop"],
    ["end_turn", "stop"],
  ])("maps stop_reason %s to finish_reason %s", async (stopReason, finishReason) => {
    fake.reply({ body: textMessage("cut", { stop_reason: stopReason }) });
    const completion = await client.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }] });
    expect(completion.choices[0]!.finish_reason).toBe(finishReason);
  });

  it("counts cached prompt tokens in prompt_tokens and prompt_tokens_details", async () => {
    fake.reply({
      body: textMessage("ok", {
        usage: { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
      }),
    });
    const completion = await client.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }] });
    expect(completion.usage).toEqual({
      prompt_tokens: 125,
      completion_tokens: 7,
      total_tokens: 132,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it("streams chunks with one id, the role first, content, the finish chunk and usage", async () => {
    fake.reply({ events: textStreamEvents(["Hel", "lo", "!"]) });
    const chunks = await collect(
      await client.chat.completions.create({
        model: "claude-sonnet-4-5",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Hello!");
    const finish = chunks.at(-2)!;
    expect(finish.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage).toEqual({
      prompt_tokens: 14,
      completion_tokens: 3,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(lastSent().stream).toBe(true);
  });

  it("ends the stream with data: [DONE] and sends no usage chunk unless asked", async () => {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer client-key" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }], stream: true }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    const frames = text.split("\n\n").filter((frame) => frame !== "");
    expect(frames.at(-1)).toBe("data: [DONE]");
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice("data: ".length)));
    expect(chunks.some((chunk) => "usage" in chunk)).toBe(false);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");
  });

  it("streams tool calls each with its own index and argument fragments", async () => {
    fake.reply({ events: toolUseStream() });
    const chunks = await collect(
      await client.chat.completions.create({
        model: "claude-sonnet-4-5",
        messages: [{ role: "user", content: "Weather and time?" }],
        stream: true,
      }),
    );
    const calls = new Map<number, { id?: string; name?: string; arguments: string }>();
    for (const chunk of chunks) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        const entry = calls.get(call.index) ?? { arguments: "" };
        if (call.id) entry.id = call.id;
        if (call.function?.name) entry.name = call.function.name;
        entry.arguments += call.function?.arguments ?? "";
        calls.set(call.index, entry);
      }
    }
    expect([...calls.entries()]).toEqual([
      [0, { id: "toolu_1", name: "get_weather", arguments: '{"city": "Paris"}' }],
      [1, { id: "toolu_2", name: "get_time", arguments: '{"tz":"CET"}' }],
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Checking.");
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("turns an upstream error event mid-stream into an error the client sees", async () => {
    const events = textStreamEvents(["partial"]).slice(0, 4);
    events.push({ event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } });
    fake.reply({ events });
    const stream = await client.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
    });
    await expect(collect(stream)).rejects.toMatchObject({ message: expect.stringContaining("Overloaded") });
  });

  it("ends with an error event when the upstream body breaks off", async () => {
    fake.reply({ events: textStreamEvents(["partial"]).slice(0, 4), cut: true });
    const stream = await client.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
    });
    await expect(collect(stream)).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it("aborts the upstream request when the client goes away mid-stream", async () => {
    fake.reply({ events: textStreamEvents(["first"]).slice(0, 4), hold: true });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }], stream: true },
      { signal: controller.signal },
    );
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content === "first") controller.abort();
    }
    await fake.requests.at(-1)!.closed;
  });

  it("answers upstream errors in OpenAI's shape with their status and retry-after", async () => {
    fake.reply({
      status: 429,
      headers: { "retry-after": "17" },
      body: { type: "error", error: { type: "rate_limit_error", message: "All accounts are cooling down" } },
    });
    const failure = await client.chat.completions
      .create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    const error = failure as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.status).toBe(429);
    expect(error.headers.get("retry-after")).toBe("17");
    expect(error.error).toEqual({
      message: "All accounts are cooling down",
      type: "rate_limit_error",
      param: null,
      code: "rate_limit_exceeded",
    });
  });
});

describe("POST /v1/chat/completions through the real pool", () => {
  it("answers 429 with the pool's retry-after when every account is cooling", async () => {
    const proxy = createProxy(
      {
        enabled: true,
        upstream: { anthropic: fake.url },
        clientKeys: ["pool-client-key-0123456789"],
        accounts: [{ id: "only", type: "api-key", apiKey: "sk-ant-test" }],
      },
      { chatCompletions: chatCompletionsFor(runtime) },
    );
    const server = createAdapter(runtime, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
    registerProxyRoutes(server, proxy, { messages: false, chatCompletions: true });
    await server.start();
    try {
      const pooled = new OpenAI({
        apiKey: "pool-client-key-0123456789",
        baseURL: `http://127.0.0.1:${server.address()?.port}/v1`,
        maxRetries: 0,
      });
      const answered = await pooled.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] });
      expect(answered.choices[0]!.message.content).toBe("Hello there");
      await proxy.pool.cooldown("only", Date.now() + 90_000, "test");
      const failure = await pooled.chat.completions
        .create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
      const error = failure as InstanceType<typeof OpenAI.RateLimitError>;
      expect(Number(error.headers.get("retry-after"))).toBeGreaterThan(80);
      expect(error.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    } finally {
      await server.stop();
      await proxy.close();
    }
  });
});

describe("POST /v1/chat/completions request errors", () => {
  it("refuses a caller without a client key with 401 in OpenAI's shape, before any upstream call", async () => {
    const stranger = new OpenAI({ apiKey: "wrong-key", baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    const failure = await stranger.chat.completions
      .create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((failure as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe("invalid_api_key");
    const anonymous = await fetch(`${baseUrl}/v1/chat/completions`, { method: "POST", body: "{" });
    expect(anonymous.status).toBe(401);
    expect(fake.requests).toHaveLength(0);
  });

  it("answers malformed JSON with 400 in OpenAI's shape", async () => {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer client-key" },
      body: "{not json",
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: "invalid_request_error", param: null, code: null });
    expect(typeof body.error.message).toBe("string");
  });

  it("reads the body as JSON whatever its content type says (curl -d sends form)", async () => {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Bearer client-key" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { object: string }).object).toBe("chat.completion");
  });

  it("refuses too deep nesting with 400 and a body over the limit with 413, in OpenAI's shape", async () => {
    const deep = `{"model":"claude-x","messages":${"[".repeat(200)}${"]".repeat(200)}}`;
    const nested = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer client-key" },
      body: deep,
    });
    expect(nested.status).toBe(400);
    expect(((await nested.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const huge = JSON.stringify({ model: "claude-x", messages: [{ role: "user", content: "x".repeat(3 * 1024 * 1024) }] });
    const tooLarge = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer client-key" },
      body: huge,
    });
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    expect(fake.requests).toHaveLength(0);
  });

  it("names the invalid field", async () => {
    const failure = await client.chat.completions
      .create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }], temperature: 7 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("temperature");
    const missing = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer client-key" },
      body: JSON.stringify({ model: "claude-x" }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { param: string } }).error.param).toBe("messages");
    expect(fake.requests).toHaveLength(0);
  });

  it("refuses tool call arguments that are not JSON and image URLs of other schemes", async () => {
    const badArguments = await client.chat.completions
      .create({
        model: "claude-sonnet-4-5",
        messages: [
          { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] },
          { role: "user", content: "x" },
        ],
      })
      .catch((error: unknown) => error);
    expect((badArguments as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages[0].tool_calls[0].function.arguments");
    const badImage = await client.chat.completions
      .create({
        model: "claude-sonnet-4-5",
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "file:///etc/passwd" } }] }],
      })
      .catch((error: unknown) => error);
    expect(badImage).toBeInstanceOf(OpenAI.BadRequestError);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("POST /v1/chat/completions for the runtime's providers", () => {
  it("generates with the local provider", async () => {
    const completion = await client.chat.completions.create({ model: "echo", messages: [{ role: "user", content: "ping" }] });
    expect(completion.choices[0]!.message.content).toContain('you said "ping"');
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(0);
  });

  it("streams with the local provider, usage included", async () => {
    const chunks = await collect(
      await client.chat.completions.create({
        model: "local/echo",
        messages: [{ role: "user", content: "ping" }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toContain('you said "ping"');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
  });

  it("answers an unknown model with 404 model_not_found", async () => {
    const failure = await client.chat.completions
      .create({ model: "gpt-nonexistent", messages: [{ role: "user", content: "x" }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
    expect((failure as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
  });
});
