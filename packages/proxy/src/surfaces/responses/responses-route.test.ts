import { createAdapter } from "@conduit-ai/adapter-hono";
import { createRuntime } from "@conduit-ai/runtime";
import type { BaseServerAdapter } from "@conduit-ai/server-core";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClientCheck } from "../../admission/client-auth.js";
import { type FakeAnthropic, fixedAnswer, startFakeAnthropic, textMessage, textStreamEvents } from "@conduit-ai/fakes";
import { forwardTo } from "../../testing/forward-to.js";
import { MemoryResponseStore } from "./response-store.js";
import { createResponsesRoute } from "./responses-route.js";

// A real Conduit server on loopback whose sendMessages forwards to a fake Messages API, driven by
// the official `openai` client's `responses.create` and `responses.stream`.
let fake: FakeAnthropic;
let adapter: BaseServerAdapter<unknown>;
let runtime: ReturnType<typeof createRuntime>;
let client: OpenAI;
let baseUrl: string;

beforeAll(async () => {
  // Any key; "Hello there" unless a test queues its own reply.
  fake = await startFakeAnthropic({ anyCredential: true, answer: fixedAnswer(["Hello", " there"], { input: 12, output: 5 }) });
  runtime = createRuntime({ env: {} });
  adapter = createAdapter(runtime, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
  adapter.registerRoute(
    createResponsesRoute({
      sendMessages: forwardTo(fake),
      runtime,
      isClientAllowed: createClientCheck(["client-key-0123456789"]),
      store: new MemoryResponseStore(),
    }),
  );
  await adapter.start();
  baseUrl = `http://127.0.0.1:${adapter.address()?.port}`;
  client = new OpenAI({ apiKey: "client-key-0123456789", baseURL: `${baseUrl}/v1`, maxRetries: 0, timeout: 20_000 });
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

function toolUseMessage(): Record<string, unknown> {
  return textMessage("", {
    content: [
      { type: "thinking", thinking: "Weather needs a tool.", signature: "sig-abc" },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
    ],
    stop_reason: "tool_use",
  });
}

describe("POST /v1/responses for Claude models", () => {
  it("answers responses.create with text, usage mapped and instructions as system", async () => {
    const response = await client.responses.create({ model: "claude-sonnet-4-5", instructions: "Be brief.", input: "Hi" });
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Hello there");
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17 });
    expect(lastSent()).toMatchObject({ model: "claude-sonnet-4-5", system: "Be brief.", max_tokens: 4096 });
    expect(lastSent().messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
  });

  it("translates function tools, tool_choice and reasoning.effort, and answers function_call items", async () => {
    fake.reply({ body: toolUseMessage() });
    const response = await client.responses.create({
      model: "claude-sonnet-4-5",
      input: [{ role: "user", content: "Weather in Paris?" }],
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
          strict: false,
        },
      ],
      tool_choice: "auto",
      reasoning: { effort: "low" },
      max_output_tokens: 8000,
    });
    expect(lastSent()).toMatchObject({
      max_tokens: 8000,
      thinking: { type: "enabled", budget_tokens: 2048 },
      tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      tool_choice: { type: "auto" },
    });
    const call = response.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' });
    const reasoning = response.output.find((item) => item.type === "reasoning");
    expect(reasoning?.type === "reasoning" && reasoning.encrypted_content).toBeTruthy();

    // The next turn sends the call and its output back (with the reasoning item): Claude gets the
    // signed thinking block, the tool_use and the tool_result in order.
    await client.responses.create({
      model: "claude-sonnet-4-5",
      reasoning: { effort: "low" },
      max_output_tokens: 8000,
      input: [
        { role: "user", content: "Weather in Paris?" },
        ...(response.output as never[]),
        { type: "function_call_output", call_id: "toolu_1", output: "18°C" },
      ],
    });
    expect(lastSent().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Weather needs a tool.", signature: "sig-abc" },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "18°C" }] },
    ]);
  });

  it("flattens Codex's namespace tools for Claude and names their calls by namespace again, JSON and streamed", async () => {
    const namespaceTool = {
      type: "namespace",
      name: "multi_agent_v1",
      description: "Agents",
      tools: [
        { type: "function", name: "spawn_agent", description: "Spawn", strict: false, parameters: { type: "object", properties: {} } },
      ],
    };
    const called = textMessage("", {
      content: [{ type: "tool_use", id: "toolu_ns", name: "multi_agent_v1__spawn_agent", input: { task: "qa" } }],
      stop_reason: "tool_use",
    });
    fake.reply({ body: called });
    const body = { model: "claude-sonnet-4-5", input: "Spawn a QA agent", tools: [namespaceTool] };
    const response = await fetch(`${baseUrl}/v1/responses`, {
      method: "POST",
      headers: { authorization: "Bearer client-key-0123456789", "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(lastSent().tools).toEqual([
      { name: "multi_agent_v1__spawn_agent", description: "Spawn", input_schema: { type: "object", properties: {} } },
    ]);
    const answer = (await response.json()) as { output: Array<Record<string, unknown>> };
    expect(answer.output[0]).toMatchObject({
      type: "function_call",
      namespace: "multi_agent_v1",
      name: "spawn_agent",
      call_id: "toolu_ns",
    });

    // The call comes back as Codex sends it (with its namespace): Claude sees the flat name again.
    fake.reply({ body: textMessage("Spawned.") });
    await fetch(`${baseUrl}/v1/responses`, {
      method: "POST",
      headers: { authorization: "Bearer client-key-0123456789", "content-type": "application/json" },
      body: JSON.stringify({
        ...body,
        input: [
          { role: "user", content: "Spawn a QA agent" },
          { type: "function_call", namespace: "multi_agent_v1", name: "spawn_agent", call_id: "toolu_ns", arguments: '{"task":"qa"}' },
          { type: "function_call_output", call_id: "toolu_ns", output: "agent 7" },
        ],
      }),
    });
    expect((lastSent().messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_ns", name: "multi_agent_v1__spawn_agent", input: { task: "qa" } }],
    });

    const start = textStreamEvents([])[0]!;
    fake.reply({
      events: [
        start,
        {
          event: "content_block_start",
          data: {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: "toolu_s", name: "multi_agent_v1__spawn_agent", input: {} },
          },
        },
        {
          event: "content_block_delta",
          data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{}" } },
        },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 3 } } },
        { event: "message_stop", data: { type: "message_stop" } },
      ],
    });
    const stream = client.responses.stream(body as never);
    const added: Array<Record<string, unknown>> = [];
    for await (const event of stream) if (event.type === "response.output_item.added") added.push(event.item as never);
    expect(added[0]).toMatchObject({ type: "function_call", namespace: "multi_agent_v1", name: "spawn_agent" });
    expect((await stream.finalResponse()).output[0]).toMatchObject({ namespace: "multi_agent_v1", name: "spawn_agent" });
  });

  it("refuses a namespace tool without its tools with a 400, not a crash", async () => {
    const refused = await client.responses
      .create({ model: "claude-sonnet-4-5", input: "x", tools: [{ type: "namespace", name: "broken" } as never] })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.error).toMatchObject({ type: "invalid_request_error", param: expect.stringMatching(/^tools/) });
    expect(fake.requests).toHaveLength(0);
  });

  it("runs the hosted web_search tool as Claude's web search: web_search_call items, JSON and streamed", async () => {
    const searched = textMessage("", {
      content: [
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "conduit gateway" } },
        { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
        { type: "text", text: "Conduit is a gateway." },
      ],
    });
    fake.reply({ body: searched });
    const body = { model: "claude-sonnet-4-5", input: "What is Conduit?", tools: [{ type: "web_search" }] };
    const response = await client.responses.create(body as never);
    expect(lastSent().tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
    expect(response.output[0]).toMatchObject({
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query: "conduit gateway" },
    });
    expect(response.output_text).toBe("Conduit is a gateway.");

    // Codex sends the search back in its history: accepted, and nothing of it is replayed to Claude.
    fake.reply({ body: textMessage("Yes.") });
    await client.responses.create({
      ...(body as object),
      input: [{ role: "user", content: "What is Conduit?" }, ...(response.output as never[]), { role: "user", content: "Sure?" }],
    } as never);
    expect(JSON.stringify(lastSent().messages)).not.toContain("server_tool_use");

    const start = textStreamEvents([])[0]!;
    fake.reply({
      events: [
        start,
        {
          event: "content_block_start",
          data: {
            type: "content_block_start",
            index: 0,
            content_block: { type: "server_tool_use", id: "srvtoolu_2", name: "web_search", input: {} },
          },
        },
        {
          event: "content_block_delta",
          data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"query":"conduit"}' } },
        },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        {
          event: "content_block_start",
          data: {
            type: "content_block_start",
            index: 1,
            content_block: { type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: [] },
          },
        },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 1 } },
        { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } } },
        { event: "message_stop", data: { type: "message_stop" } },
      ],
    });
    const stream = client.responses.stream(body as never);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual(
      expect.arrayContaining([
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
      ]),
    );
    expect(types).not.toContain("response.function_call_arguments.delta");
    expect((await stream.finalResponse()).output[0]).toMatchObject({ type: "web_search_call", action: { query: "conduit" } });
  });

  it("streams the events responses.stream expects, text and function calls", async () => {
    fake.reply({ events: textStreamEvents(["Hel", "lo"]) });
    const stream = client.responses.stream({ model: "claude-sonnet-4-5", input: "Hi" });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    const final = await stream.finalResponse();
    expect(text).toBe("Hello");
    expect(final.output_text).toBe("Hello");
    expect(final.usage).toMatchObject({ input_tokens: 14, input_tokens_details: { cached_tokens: 4 }, output_tokens: 2 });
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_item.added");
    expect(types).toContain("response.content_part.added");
    expect(types).toContain("response.output_text.done");
    expect(types.at(-1)).toBe("response.completed");
    expect(lastSent().stream).toBe(true);
  });

  it("streams function call arguments as deltas", async () => {
    const start = textStreamEvents([])[0]!;
    fake.reply({
      events: [
        start,
        {
          event: "content_block_start",
          data: {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: "toolu_9", name: "get_weather", input: {} },
          },
        },
        {
          event: "content_block_delta",
          data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city":' } },
        },
        {
          event: "content_block_delta",
          data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"Oslo"}' } },
        },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } } },
        { event: "message_stop", data: { type: "message_stop" } },
      ],
    });
    const stream = client.responses.stream({
      model: "claude-sonnet-4-5",
      input: "Weather?",
      tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: {} }, strict: false }],
    });
    const deltas: string[] = [];
    for await (const event of stream) if (event.type === "response.function_call_arguments.delta") deltas.push(event.delta);
    const final = await stream.finalResponse();
    expect(deltas).toEqual(['{"city":', '"Oslo"}']);
    expect(final.output[0]).toMatchObject({ type: "function_call", call_id: "toolu_9", arguments: '{"city":"Oslo"}', status: "completed" });
  });

  it("continues a stored response with previous_response_id, and refuses an unknown one in OpenAI's shape", async () => {
    const first = await client.responses.create({ model: "claude-sonnet-4-5", input: "My name is Ada." });
    await client.responses.create({ model: "claude-sonnet-4-5", input: "What is my name?", previous_response_id: first.id });
    expect(lastSent().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "My name is Ada." }] },
      { role: "assistant", content: [{ type: "text", text: "Hello there" }] },
      { role: "user", content: [{ type: "text", text: "What is my name?" }] },
    ]);
    const refused = await client.responses
      .create({ model: "claude-sonnet-4-5", input: "x", previous_response_id: "resp_unknown" })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.error).toMatchObject({ param: "previous_response_id", code: "previous_response_not_found" });
  });

  it("refuses what Claude cannot honour with a 400 naming the parameter", async () => {
    const refused = await client.responses
      .create({ model: "claude-sonnet-4-5", input: "x", tools: [{ type: "file_search", vector_store_ids: ["vs_1"] } as never] })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.error).toMatchObject({ param: "tools[0].type", code: "unsupported_parameter" });
    expect(fake.requests).toHaveLength(0);
  });

  it("answers a wrong client key with OpenAI's 401", async () => {
    const stranger = new OpenAI({ apiKey: "wrong-key-0123456789", baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    const refused = await stranger.responses.create({ model: "claude-sonnet-4-5", input: "x" }).catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused.error).toMatchObject({ code: "invalid_api_key" });
  });
});

describe("POST /v1/responses for runtime models", () => {
  it("answers the local provider by its bare name, JSON and streamed", async () => {
    const response = await client.responses.create({ model: "local", input: "ping" });
    expect(response.output_text).toContain("ping");
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
    const stream = client.responses.stream({ model: "local", input: "pong" });
    let text = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
    expect(text).toContain("pong");
    expect((await stream.finalResponse()).status).toBe("completed");
    expect(fake.requests).toHaveLength(0);
  });
});
