import type { DataStreamEvent, GenerateResult } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { fromMessagesResponse } from "../openai-chat/from-messages-response.js";
import { RuntimeStreamTranslator, messageOfResult } from "./to-messages-answer.js";

const event = (type: DataStreamEvent["type"], data: unknown): DataStreamEvent => ({ type, timestamp: 0, data });
const result = (overrides: Partial<GenerateResult>): GenerateResult => ({
  content: "",
  provider: "local",
  model: "echo",
  usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
  toolCalls: [],
  toolResults: [],
  finishReason: "stop",
  ...overrides,
});

describe("a runtime answer as the Messages API's", () => {
  it("is a message: its text, then each tool call as a tool_use block, with the stop reason and usage", () => {
    const message = messageOfResult(
      result({ content: "Looking.", toolCalls: [{ id: "call_1", name: "lookup", arguments: { q: "x" } }], finishReason: "tool-calls" }),
      { id: "msg_1", model: "local/echo" },
    );
    expect(message).toEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "local/echo",
      content: [
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "call_1", name: "lookup", input: { q: "x" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: 3,
        output_tokens: 4,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    });
  });

  it("names a provider's content filter as a refusal, which chat completions answer as content_filter", () => {
    const message = messageOfResult(result({ content: "…", finishReason: "content-filter" }), { id: "msg_1", model: "m" });
    expect(message.stop_reason).toBe("refusal");
    expect(fromMessagesResponse(message, { id: "chatcmpl-1", created: 0, model: "m" }).choices[0]!.finish_reason).toBe("content_filter");
  });

  it("is a stream: text in one block, each tool call a block of its own, then the stop reason, usage and message_stop", () => {
    const translator = new RuntimeStreamTranslator({ id: "msg_1", model: "local/echo" });
    const events = [
      ...translator.start(),
      ...translator.translate(event("text-start", {})),
      ...translator.translate(event("text-delta", { delta: "Hi" })),
      ...translator.translate(event("text-delta", { delta: "!" })),
      ...translator.translate(event("tool-call", { id: "call_1", name: "lookup", arguments: { q: "x" } })),
      ...translator.translate(event("finish", { reason: "tool-calls", usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } })),
    ];
    expect(events.map((item) => ("index" in item ? `${item.type}:${item.index}` : item.type))).toEqual([
      "message_start",
      "content_block_start:0",
      "content_block_delta:0",
      "content_block_delta:0",
      "content_block_stop:0",
      "content_block_start:1",
      "content_block_delta:1",
      "content_block_stop:1",
      "message_delta",
      "message_stop",
    ]);
    expect(events[5]).toEqual({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "call_1", name: "lookup", input: {} },
    });
    expect(events[6]).toMatchObject({ delta: { type: "input_json_delta", partial_json: '{"q":"x"}' } });
    expect(events[8]).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: {
        input_tokens: 3,
        output_tokens: 4,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    });
    expect(translator.finished).toBe(true);
    expect(translator.usage).toMatchObject({ input: 3, output: 4, cacheRead: 0 });
  });

  it("ends a failed, cut or throwing stream with an error event, and no usage", () => {
    const failed = new RuntimeStreamTranslator({ id: "msg_1", model: "m" });
    expect(failed.translate(event("error", { message: "rate limited" }))).toEqual([
      { type: "error", error: { type: "api_error", message: "rate limited" } },
    ]);
    expect(new RuntimeStreamTranslator({ id: "msg_1", model: "m" }).ended()).toEqual([
      { type: "error", error: { type: "api_error", message: "The provider stream ended before it finished" } },
    ]);
    const thrown = new RuntimeStreamTranslator({ id: "msg_1", model: "m" });
    expect(thrown.failed(new Error("socket closed"))[0]).toMatchObject({ error: { message: "socket closed" } });
    expect([failed.usage, thrown.usage]).toEqual([undefined, undefined]);
  });
});
