import { createAdapter } from "@conduit-ai/adapter-hono";
import { createRuntime } from "@conduit-ai/runtime";
import type { BaseServerAdapter } from "@conduit-ai/server-core";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClientCheck } from "../admission/client-auth.js";
import { type FakeAnthropic, fixedAnswer, startFakeAnthropic } from "@conduit-ai/fakes";
import { forwardTo } from "../testing/forward-to.js";
import { createChatCompletionsRoute } from "./chat-completions/chat-completions-route.js";
import { MemoryResponseStore } from "./responses/response-store.js";
import { createResponsesRoute } from "./responses/responses-route.js";

// The whole request reaches non-Claude models (conversation, client tools,
// tool_choice, response_format…), and what a target cannot honour is a 400 naming it, unless dropParams.
let fake: FakeAnthropic;
let adapter: BaseServerAdapter<unknown>;
let runtime: ReturnType<typeof createRuntime>;
let client: OpenAI;
let lenient: OpenAI;

beforeAll(async () => {
  // Any key; "Hello there" unless a test queues its own reply.
  fake = await startFakeAnthropic({ anyCredential: true, answer: fixedAnswer(["Hello", " there"], { input: 12, output: 5 }) });
  runtime = createRuntime({ env: {} });
  adapter = createAdapter(runtime, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
  const shared = { sendMessages: forwardTo(fake), runtime, isClientAllowed: createClientCheck(["client-key-0123456789"]) };
  adapter.registerRoute(createChatCompletionsRoute(shared));
  adapter.registerRoute(createResponsesRoute({ ...shared, store: new MemoryResponseStore() }));
  const relaxed = { ...shared, dropParams: true };
  adapter.registerRoute({ ...createChatCompletionsRoute(relaxed), path: "/lenient/v1/chat/completions" });
  await adapter.start();
  const base = `http://127.0.0.1:${adapter.address()?.port}`;
  client = new OpenAI({ apiKey: "client-key-0123456789", baseURL: `${base}/v1`, maxRetries: 0 });
  lenient = new OpenAI({ apiKey: "client-key-0123456789", baseURL: `${base}/lenient/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await adapter.stop();
  await runtime.close();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: "function",
    function: { name: "lookup", description: "Look up", parameters: { type: "object", properties: { query: { type: "string" } } } },
  },
];

describe("chat completions for runtime models", () => {
  it("returns the model's call of a client tool, then answers from the tool result", async () => {
    const first = await client.chat.completions.create({ model: "local", messages: [{ role: "user", content: "lookup Paris" }], tools });
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call).toMatchObject({ type: "function", function: { name: "lookup" } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ query: "lookup Paris" });
    const second = await client.chat.completions.create({
      model: "local",
      tools,
      messages: [
        { role: "user", content: "lookup Paris" },
        first.choices[0]!.message,
        { role: "tool", tool_call_id: call.id, content: "sunny" },
      ],
    });
    expect(second.choices[0]!.message.content).toContain("the lookup tool returned sunny");
  });

  it("streams a client tool call as tool_calls deltas", async () => {
    const stream = await client.chat.completions.create({
      model: "local",
      messages: [{ role: "user", content: "x" }],
      tools,
      tool_choice: { type: "function", function: { name: "lookup" } },
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    // As Claude's calls stream: the call with its id and name first, then its arguments.
    expect(calls[0]).toMatchObject({ index: 0, type: "function", function: { name: "lookup", arguments: "" } });
    expect(calls[0]!.id).toBeTruthy();
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.slice(1).every((call) => call.index === 0 && call.id === undefined && call.function?.name === undefined)).toBe(true);
    expect(JSON.parse(calls.map((call) => call.function?.arguments ?? "").join(""))).toEqual({ query: "x" });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("refuses what no runtime provider is asked for with a 400 before a stream starts", async () => {
    const refused = await client.chat.completions
      .create({ model: "local", messages: [{ role: "user", content: "x" }], logprobs: true, stream: true })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.error).toMatchObject({ param: "logprobs", code: "unsupported_parameter" });
  });

  it("honours response_format with a JSON Schema", async () => {
    const completion = await client.chat.completions.create({
      model: "local",
      messages: [{ role: "user", content: "hi" }],
      response_format: {
        type: "json_schema",
        json_schema: { name: "greeting", schema: { type: "object", properties: { text: { type: "string" }, n: { type: "integer" } } } },
      },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toMatchObject({ n: 0 });
  });

  it("refuses what no runtime provider is asked for, naming the parameter", async () => {
    const refused = await client.chat.completions
      .create({ model: "local", messages: [{ role: "user", content: "x" }], logit_bias: { "50256": -100 } })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.error).toMatchObject({ param: "logit_bias", code: "unsupported_parameter" });
  });
});

describe("chat completions for Claude models", () => {
  it("refuses seed, penalties and JSON response_format with a 400 naming each, and drops them with dropParams", async () => {
    for (const [param, extra] of [
      ["seed", { seed: 1 }],
      ["frequency_penalty", { frequency_penalty: 0.5 }],
      ["response_format", { response_format: { type: "json_object" } }],
    ] as const) {
      const refused = await client.chat.completions
        .create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }], ...extra })
        .catch((error) => error);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect(refused.error).toMatchObject({ param, code: "unsupported_parameter" });
    }
    expect(fake.requests).toHaveLength(0);
    const dropped = await lenient.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "x" }],
      seed: 1,
    });
    expect(dropped.choices[0]!.message.content).toBe("Hello there");
    expect(fake.requests.at(-1)!.body.seed).toBeUndefined();
  });

  it("turns a JSON Schema response format into Claude's structured output (chat completions and responses)", async () => {
    const schema = { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false };
    await client.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "x" }],
      response_format: { type: "json_schema", json_schema: { name: "answer", strict: true, schema } },
    });
    expect(fake.requests.at(-1)!.body.output_config).toEqual({ format: { type: "json_schema", schema } });
    await client.responses.create({
      model: "claude-sonnet-4-5",
      input: "x",
      text: { format: { type: "json_schema", name: "answer", strict: true, schema } },
    });
    expect(fake.requests.at(-1)!.body.output_config).toEqual({ format: { type: "json_schema", schema } });
    const plainJson = await client.responses
      .create({ model: "claude-sonnet-4-5", input: "x", text: { format: { type: "json_object" } } })
      .catch((error) => error);
    expect(plainJson).toBeInstanceOf(OpenAI.BadRequestError);
    expect(plainJson.error).toMatchObject({ param: "text.format", code: "unsupported_parameter" });
  });

  it("maps reasoning_effort to extended thinking", async () => {
    await client.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "x" }],
      reasoning_effort: "medium",
    });
    expect(fake.requests.at(-1)!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 8192 }, max_tokens: 8192 + 4096 });
  });
});

describe("responses for runtime models", () => {
  it("returns function_call items for client tools and continues with the output", async () => {
    const first = await client.responses.create({
      model: "local",
      input: "lookup Oslo",
      tools: [
        { type: "function", name: "lookup", parameters: { type: "object", properties: { query: { type: "string" } } }, strict: false },
      ],
    });
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ name: "lookup", arguments: JSON.stringify({ query: "lookup Oslo" }) });
    const second = await client.responses.create({
      model: "local",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: "rainy" }],
      tools: [{ type: "function", name: "lookup", parameters: { type: "object", properties: {} }, strict: false }],
    });
    expect(second.output_text).toContain("the lookup tool returned rainy");
  });

  it("streams a client tool call as its own item, in the order the model answered", async () => {
    const stream = await client.responses.create({
      model: "local",
      input: "lookup Bergen",
      stream: true,
      tools: [
        { type: "function", name: "lookup", parameters: { type: "object", properties: { query: { type: "string" } } }, strict: false },
      ],
      tool_choice: { type: "function", name: "lookup" },
    });
    const added: string[] = [];
    let argumentDeltas = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_item.added") added.push(`${event.output_index}:${event.item.type}`);
      if (event.type === "response.function_call_arguments.delta") argumentDeltas += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    // The model said no text: no empty message item before its call.
    expect(added).toEqual(["0:function_call"]);
    expect(JSON.parse(argumentDeltas)).toEqual({ query: "lookup Bergen" });
    expect(completed!.output).toEqual([expect.objectContaining({ type: "function_call", name: "lookup", status: "completed" })]);
  });
});
