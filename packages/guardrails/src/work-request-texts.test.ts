import { describe, expect, it } from "vitest";
import { workRequestSlots } from "./work-request-texts.js";

describe("workRequestSlots", () => {
  it("finds every text a model reads in a runtime request, and replaces it in place", () => {
    const body = {
      model: "echo",
      sessionId: "s-1",
      input: { text: "input" },
      prompt: "prompt",
      system: "system",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "part" },
            { type: "image", url: "data:image/png;base64,AAAA" },
          ],
        },
        { role: "tool", toolCallId: "call_1", toolName: "search", content: "tool result" },
        {
          id: "m1",
          role: "user",
          parts: [
            { type: "text", text: "use chat" },
            { type: "file", url: "https://x/y.pdf" },
          ],
        },
      ],
      texts: ["one", "two"],
    };
    const slots = workRequestSlots(body);
    expect(slots.map((slot) => slot.text)).toEqual(["input", "prompt", "system", "part", "tool result", "use chat", "one", "two"]);
    for (const slot of slots) slot.replace(slot.text.toUpperCase());
    expect(body.input.text).toBe("INPUT");
    expect(body.messages[0]?.content).toEqual([
      { type: "text", text: "PART" },
      { type: "image", url: "data:image/png;base64,AAAA" },
    ]);
    expect(body.messages[2]?.parts?.[0]).toEqual({ type: "text", text: "USE CHAT" });
    expect(body.texts).toEqual(["ONE", "TWO"]);
    expect(body.sessionId).toBe("s-1");
    expect(body.model).toBe("echo");
  });

  it("finds nothing in what is not a request object", () => {
    for (const body of [undefined, null, "text", ["a"], { input: "not an object" }]) expect(workRequestSlots(body)).toEqual([]);
  });
});
