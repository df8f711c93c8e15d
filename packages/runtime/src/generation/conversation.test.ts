import type { ConversationMessage, DataStreamEvent } from "@conduit-ai/server-core";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import { startFakeOpenAI, type FakeServer } from "@conduit-ai/fakes";

// A whole conversation with the caller's own tools (the proxy's OpenAI surfaces), through both
// remote engines (AI SDK for generate, Conduit's Chat Completions client for streams) and the local provider.
const upstreams: FakeServer[] = [];
const runtimes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await Promise.all(upstreams.splice(0).map((upstream) => upstream.close()));
});

async function remote() {
  const upstream = await startFakeOpenAI();
  upstream.scenario = "first-tool";
  upstreams.push(upstream);
  const runtime = createRuntime({ env: { OPENAI_BASE_URL: `${upstream.url}/v1`, OPENAI_MODELS: "m1" }, maxRetries: 0 });
  runtimes.push(runtime);
  return { upstream, runtime };
}

const lookup = {
  name: "lookup",
  description: "Looks a thing up",
  parameters: { type: "object", properties: { expression: { type: "string" } } },
};
const conversation: ConversationMessage[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: "What is 6*7?" },
];
const afterCall: ConversationMessage[] = [
  ...conversation,
  { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "lookup", arguments: { expression: "6*7" } }] },
  { role: "tool", toolCallId: "call_1", toolName: "lookup", content: "42" },
];

async function collect(stream: AsyncIterable<DataStreamEvent>): Promise<DataStreamEvent[]> {
  const events: DataStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("a caller's conversation and tools", () => {
  it("generate: sends messages, tools and settings; hands the client tool call back unexecuted", async () => {
    const { upstream, runtime } = await remote();
    const result = await runtime.generate({
      messages: conversation,
      clientTools: [lookup],
      toolChoice: "required",
      responseFormat: { type: "json", schema: { type: "object", properties: { answer: { type: "string" } } }, name: "answer" },
      stopSequences: ["END"],
      topP: 0.5,
      seed: 7,
    });
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls).toEqual([{ id: "call_1", name: "lookup", arguments: { expression: "6*7" } }]);
    expect(result.toolResults).toEqual([]);
    expect(upstream.requests).toHaveLength(1);
    const body = upstream.requests[0]!.body;
    expect(body).toMatchObject({ tool_choice: "required", stop: ["END"], top_p: 0.5, seed: 7 });
    expect(body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "What is 6*7?" },
    ]);
    expect((body.tools as Array<{ function: { name: string } }>)[0]!.function.name).toBe("lookup");
    expect(body.response_format).toMatchObject({ type: "json_schema" });
  });

  it("generate: a tool result turn reaches the model as a tool message", async () => {
    const { upstream, runtime } = await remote();
    const result = await runtime.generate({ messages: afterCall, clientTools: [lookup] });
    expect(result.content).toBe("The tool said 42");
    expect(upstream.requests[0]!.body.messages).toMatchObject([
      { role: "system" },
      { role: "user" },
      { role: "assistant", tool_calls: [{ id: "call_1", function: { name: "lookup" } }] },
      { role: "tool", tool_call_id: "call_1", content: "42" },
    ]);
  });

  it("stream: the Chat Completions client sends the conversation and ends at the client's tool call", async () => {
    const { upstream, runtime } = await remote();
    const events = await collect(runtime.stream({ messages: conversation, clientTools: [lookup], toolChoice: { name: "lookup" } }));
    expect(events.map((event) => event.type)).toEqual(["tool-call", "finish"]);
    expect((events.at(-1)!.data as { reason: string }).reason).toBe("tool-calls");
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.body).toMatchObject({ tool_choice: { type: "function", function: { name: "lookup" } } });
  });

  it("local provider: calls a named client tool, then answers from its result, and shapes JSON answers", async () => {
    const runtime = createRuntime({ env: {} });
    runtimes.push(runtime);
    const call = await runtime.generate({ messages: [{ role: "user", content: "please lookup 6*7" }], clientTools: [lookup] });
    expect(call.finishReason).toBe("tool-calls");
    expect(call.toolCalls[0]).toMatchObject({ name: "lookup", arguments: { expression: "please lookup 6*7" } });
    const answer = await runtime.generate({ messages: afterCall, clientTools: [lookup] });
    expect(answer.content).toContain("the lookup tool returned 42");
    const json = await runtime.generate({
      messages: [{ role: "user", content: "hi" }],
      responseFormat: { type: "json", schema: { type: "object", properties: { greeting: { type: "string" }, count: { type: "number" } } } },
    });
    expect(Object.keys(JSON.parse(json.content))).toEqual(["greeting", "count"]);
    const none = await runtime.generate({ messages: [{ role: "user", content: "lookup" }], clientTools: [lookup], toolChoice: "none" });
    expect(none.toolCalls).toEqual([]);
  });

  it("refuses an empty conversation and duplicate client tools with 400s naming the field", async () => {
    const runtime = createRuntime({ env: {} });
    runtimes.push(runtime);
    await expect(runtime.generate({ messages: [] })).rejects.toMatchObject({ statusCode: 400 });
    await expect(runtime.generate({ messages: conversation, clientTools: [lookup, lookup] })).rejects.toMatchObject({ statusCode: 400 });
  });
});
