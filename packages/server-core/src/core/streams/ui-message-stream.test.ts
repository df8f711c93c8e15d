import { describe, expect, it } from "vitest";
import { UiMessageStreamEncoder, fromUiChatRequest } from "./ui-message-stream.js";

const chunksOf = (text: string) =>
  text
    .split("\n\n")
    .filter(Boolean)
    .map((frame) => frame.slice("data: ".length))
    .map((data) => (data === "[DONE]" ? data : JSON.parse(data)));

describe("fromUiChatRequest", () => {
  it("takes the last user message's text parts as the input and the chat id as the session", () => {
    const body = {
      id: "chat-1",
      trigger: "submit-message",
      model: "m1",
      messages: [
        { id: "a", role: "user", parts: [{ type: "text", text: "first" }] },
        { id: "b", role: "assistant", parts: [{ type: "text", text: "answer" }] },
        {
          id: "c",
          role: "user",
          parts: [
            { type: "text", text: "second " },
            { type: "file", url: "x" },
            { type: "text", text: "question" },
          ],
        },
      ],
    };
    expect(fromUiChatRequest(body)).toEqual({ model: "m1", input: { text: "second question" }, sessionId: "chat-1" });
  });

  it("leaves Conduit's own bodies, an explicit sessionId and non-objects alone", () => {
    expect(fromUiChatRequest({ input: { text: "x" }, messages: [] })).toEqual({ input: { text: "x" }, messages: [] });
    expect(fromUiChatRequest({ id: "c", sessionId: "mine", messages: [] })).toEqual({ sessionId: "mine", input: { text: "" } });
    expect(fromUiChatRequest("text")).toBe("text");
    expect(fromUiChatRequest(null)).toBeNull();
  });
});

describe("UiMessageStreamEncoder", () => {
  it("opens the message once, closes open text parts before the finish, then [DONE]", () => {
    const encoder = new UiMessageStreamEncoder();
    const text = [
      encoder.encode({ type: "text-delta", id: "t", timestamp: 1, data: { delta: "hi" } }),
      encoder.encode({ type: "data", timestamp: 2, data: { step: 1 } }),
      encoder.encode({ type: "finish", timestamp: 3, data: { reason: "made-up", usage: { totalTokens: 2 } } }),
    ].join("");
    expect(chunksOf(text)).toEqual([
      { type: "start" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "hi" },
      { type: "data-conduit", data: { step: 1 } },
      { type: "text-end", id: "t" },
      // An unknown finish reason stays in the metadata only (the SDK's schema allows a fixed set).
      { type: "finish", messageMetadata: { reason: "made-up", usage: { totalTokens: 2 } } },
      "[DONE]",
    ]);
  });
});
