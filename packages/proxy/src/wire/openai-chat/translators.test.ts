import { describe, expect, it } from "vitest";
import { chatRequestSchema } from "./chat-request-schema.js";
import { ChunkTranslator } from "./chunk-translator.js";
import { chatUsageOf, finishReasonOf } from "./chat-completion-shapes.js";
import { fromMessagesResponse } from "./from-messages-response.js";
import { OpenAIWireError, fromVendorError } from "./openai-wire-error.js";
import { toMessagesRequest } from "./to-messages-request.js";

const translate = (body: unknown) => toMessagesRequest(chatRequestSchema.parse(body), { defaultMaxTokens: 1024 });

describe("toMessagesRequest", () => {
  it("applies the default max_tokens and prefers max_completion_tokens over max_tokens", () => {
    expect(translate({ model: "claude-x", messages: [{ role: "user", content: "a" }] }).max_tokens).toBe(1024);
    expect(
      translate({ model: "claude-x", max_tokens: 10, max_completion_tokens: 20, messages: [{ role: "user", content: "a" }] }).max_tokens,
    ).toBe(20);
  });

  it("joins system and developer parts into system and merges consecutive turns of one role", () => {
    const request = translate({
      model: "claude-x",
      stop: "STOP",
      messages: [
        {
          role: "system",
          content: [
            { type: "text", text: "A" },
            { type: "text", text: "B" },
          ],
        },
        { role: "user", content: "one" },
        { role: "user", content: "two" },
        { role: "assistant", content: "reply" },
      ],
    });
    expect(request.system).toBe("AB");
    expect(request.stop_sequences).toEqual(["STOP"]);
    expect(request.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "reply" }] },
    ]);
  });

  it("keeps tools declared with tool_choice none and passes parallel_tool_calls false with auto", () => {
    const base = { model: "claude-x", messages: [{ role: "user", content: "a" }], tools: [{ type: "function", function: { name: "f" } }] };
    expect(translate({ ...base, tool_choice: "none" }).tool_choice).toEqual({ type: "none" });
    expect(translate({ ...base, parallel_tool_calls: false }).tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(translate(base).tool_choice).toBeUndefined();
  });

  it("refuses a conversation of only instructions", () => {
    expect(() => translate({ model: "claude-x", messages: [{ role: "system", content: "a" }] })).toThrow(OpenAIWireError);
  });
});

describe("fromMessagesResponse", () => {
  it("joins text blocks, skips thinking and keeps text next to tool calls", () => {
    const completion = fromMessagesResponse(
      {
        model: "claude-y",
        content: [
          { type: "thinking", text: "hmm" },
          { type: "text", text: "a" },
          { type: "text", text: "b" },
          { type: "tool_use", id: "t", name: "f", input: { x: 1 } },
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 1, output_tokens: 2 },
      },
      { id: "chatcmpl-1", created: 1, model: "claude-x" },
    );
    expect(completion.model).toBe("claude-y");
    expect(completion.choices[0]!.message).toEqual({
      role: "assistant",
      content: "ab",
      refusal: null,
      tool_calls: [{ id: "t", type: "function", function: { name: "f", arguments: '{"x":1}' } }],
    });
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("maps every stop reason and usage with cache counts", () => {
    expect(["end_turn", "stop_sequence", "max_tokens", "tool_use", "refusal", null].map(finishReasonOf)).toEqual([
      "stop",
      "stop",
      "length",
      "tool_calls",
      "content_filter",
      "stop",
    ]);
    expect(chatUsageOf({ input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: null })).toEqual({
      prompt_tokens: 4,
      completion_tokens: 2,
      total_tokens: 6,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });
});

describe("ChunkTranslator", () => {
  const meta = { id: "chatcmpl-1", created: 1, model: "claude-x", includeUsage: true };

  it("emits the role once, before the first tool call when no text came first", () => {
    const translator = new ChunkTranslator(meta);
    translator.translate("message_start", { message: { usage: { input_tokens: 3 } } });
    const out = translator.translate("content_block_start", { index: 0, content_block: { type: "tool_use", id: "t", name: "f" } });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      type: "chunk",
      chunk: { choices: [{ delta: { tool_calls: [{ index: 0, id: "t", function: { name: "f", arguments: "" } }] } }] },
    });
  });

  it("keeps message_start's input count when message_delta carries only output tokens, then finishes once", () => {
    const translator = new ChunkTranslator(meta);
    translator.translate("message_start", { message: { usage: { input_tokens: 3, cache_read_input_tokens: 2, output_tokens: 1 } } });
    translator.translate("message_delta", { delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 9 } });
    const out = translator.translate("message_stop", {});
    expect(out.map((item) => item.type)).toEqual(["chunk", "chunk", "done"]);
    expect(out[0]).toMatchObject({ chunk: { choices: [{ finish_reason: "length", delta: {} }], usage: null } });
    expect(out[1]).toMatchObject({
      chunk: {
        choices: [],
        usage: {
          prompt_tokens: 5,
          completion_tokens: 9,
          total_tokens: 14,
          prompt_tokens_details: { cached_tokens: 2 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      },
    });
    expect(translator.translate("message_stop", {})).toEqual([]);
  });

  it("serializes content deltas exactly as the whole chunk would be, after the model changes too", () => {
    const translator = new ChunkTranslator({ ...meta, model: 'claude-"quoted"' });
    translator.translate("message_start", { message: { model: "claude-sonnet-4-5-20250929" } });
    const text = 'a "quote", \\ back\nslash ✓ \u0000 🚀';
    const [out] = translator.translate("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
    expect(out).toEqual({
      type: "json",
      json: JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "claude-sonnet-4-5-20250929",
        choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }],
        usage: null,
      }),
    });
  });

  it("turns an error event into OpenAI's error body", () => {
    const translator = new ChunkTranslator(meta);
    expect(translator.translate("error", { error: { type: "overloaded_error", message: "busy" } })).toEqual([
      { type: "error", error: { error: { message: "busy", type: "server_error", param: null, code: "overloaded_error" } } },
    ]);
  });
});

describe("fromVendorError", () => {
  it("keeps the status, maps the type and never echoes a non-JSON page", () => {
    expect(
      fromVendorError(401, JSON.stringify({ type: "error", error: { type: "authentication_error", message: "bad key" } })).toBody(),
    ).toEqual({
      error: { message: "bad key", type: "authentication_error", param: null, code: "invalid_api_key" },
    });
    const page = fromVendorError(502, "<html>secret upstream page</html>");
    expect(page.status).toBe(502);
    expect(page.message).not.toContain("secret");
  });
});
