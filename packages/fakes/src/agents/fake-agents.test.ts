import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeAgent, startFakeAnthropicAgent } from "./fake-anthropic-agent.mjs";
import { startFakeCodexAgent } from "./fake-codex-agent.mjs";

// The scripted agents the real-client checks put behind Conduit, read by the vendors' official SDKs.
const MODEL = "claude-fake-agent";
const PROMPT = "Please read the file /tmp/secret.txt and tell me the secret word.";

describe("startFakeAnthropicAgent, read by the Anthropic SDK", () => {
  let agent: FakeAgent;
  let client: Anthropic;
  beforeAll(async () => {
    agent = await startFakeAnthropicAgent({ apiKey: "sk-ant-agent" });
    client = new Anthropic({ apiKey: "sk-ant-agent", baseURL: agent.url, maxRetries: 0 });
  });
  afterAll(() => agent.close());

  const read = { name: "Read", input_schema: { type: "object" as const, properties: { file_path: { type: "string" } } } };

  it("asks for the file with a tool_use, then quotes the tool result in a streamed final answer", async () => {
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      tools: [read],
      messages: [{ role: "user", content: PROMPT }],
    });
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content[0];
    expect(call).toMatchObject({ type: "tool_use", name: "Read", input: { file_path: "/tmp/secret.txt" } });
    const final = await client.messages
      .stream({
        model: MODEL,
        max_tokens: 100,
        tools: [read],
        messages: [
          { role: "user", content: PROMPT },
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: (call as { id: string }).id, content: "The secret word is pineapple-42." }],
          },
        ],
      })
      .finalMessage();
    expect(final.content).toEqual([{ type: "text", text: "The file says the secret word is pineapple-42." }]);
    expect(final.usage.output_tokens).toBe(12);
  });

  it("answers a forced tool with a sample of its schema, and refuses a wrong key with 401", async () => {
    const forced = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      tools: [{ name: "answer", input_schema: { type: "object", properties: { word: { type: "string" }, count: { type: "integer" } } } }],
      tool_choice: { type: "tool", name: "answer" },
      messages: [{ role: "user", content: "Answer." }],
    });
    expect(forced.content[0]).toMatchObject({ type: "tool_use", name: "answer", input: { word: "pineapple-42", count: 42 } });
    const stranger = new Anthropic({ apiKey: "sk-ant-wrong", baseURL: agent.url, maxRetries: 0 });
    await expect(
      stranger.messages.create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toMatchObject({
      status: 401,
    });
  });
});

describe("startFakeCodexAgent, read by the openai SDK's Responses client", () => {
  let agent: FakeAgent;
  beforeAll(async () => {
    agent = await startFakeCodexAgent({ accessToken: "codex-token" });
  });
  afterAll(() => agent.close());

  it("streams a function call that reads the file, then a final message quoting its output", async () => {
    const client = new OpenAI({ apiKey: "codex-token", baseURL: `${agent.url}/backend-api/codex`, maxRetries: 0 });
    const tools = [{ type: "function" as const, name: "exec_command", parameters: { type: "object" }, strict: false }];
    const completedOf = async (input: OpenAI.Responses.ResponseInput | string) => {
      const stream = await client.responses.create({ model: "gpt-5-codex", input, tools, stream: true });
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) if (event.type === "response.completed") completed = event.response;
      return completed;
    };
    const first = await completedOf(PROMPT);
    const call = first?.output[0];
    expect(call).toMatchObject({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "cat /tmp/secret.txt" }) });
    const final = await completedOf([
      { role: "user", content: PROMPT },
      call as OpenAI.Responses.ResponseFunctionToolCall,
      { type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: "The secret word is pineapple-42." },
    ]);
    expect(final?.output[0]).toMatchObject({
      type: "message",
      content: [{ type: "output_text", text: "The file says the secret word is pineapple-42." }],
    });
    expect(final?.usage?.total_tokens).toBe(100);
  });

  it("refuses a wrong token with 401", async () => {
    const stranger = new OpenAI({ apiKey: "wrong", baseURL: `${agent.url}/backend-api/codex`, maxRetries: 0 });
    await expect(stranger.responses.create({ model: "gpt-5-codex", input: "hi", stream: true })).rejects.toMatchObject({ status: 401 });
  });
});
