import { describe, expect, it } from "vitest";
import { RpcError } from "../jsonrpc/json-rpc-error.js";
import { type McpToolGuard, argumentTexts, guardTexts, resultTexts } from "./tool-guard.js";

const upper: McpToolGuard = {
  async check(direction, texts) {
    for (const text of texts) text.replace(text.text.toUpperCase());
    return { hits: texts.map(() => ({ guardrail: "loud", action: "mask" as const, direction, entity: "word" })) };
  },
};
const call = { server: "web", tool: "echo", namespacedName: "web__echo" };

describe("tool guard texts", () => {
  it("every string of the arguments, at any depth; keys, numbers and empty strings are not texts", () => {
    const args = { text: "a", nested: { list: ["b", 3, { deep: "c" }], empty: "" }, flag: true };
    expect(argumentTexts(args).map((slot) => slot.text)).toEqual(["a", "b", "c"]);
  });

  it("a result's text items, embedded text resources and structuredContent strings; images pass", () => {
    const result = {
      content: [
        { type: "text", text: "one" },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a", text: "two" } },
      ],
      structuredContent: { reply: "three", count: 1 },
    };
    expect(resultTexts(result).map((slot) => slot.text)).toEqual(["one", "two", "three"]);
  });

  it("a mask rewrites the texts in place and the hits are kept", async () => {
    const result = { content: [{ type: "text", text: "quiet" }], structuredContent: { reply: "hush" } };
    const hits: unknown[] = [];
    await guardTexts(upper, "response", resultTexts(result), call, (found) => hits.push(...found));
    expect(result).toEqual({ content: [{ type: "text", text: "QUIET" }], structuredContent: { reply: "HUSH" } });
    expect(hits).toHaveLength(2);
  });

  it("a block is a JSON-RPC error naming the guardrail: -32602 for arguments, -32004 for a result", async () => {
    const blocking: McpToolGuard = {
      check: async (direction) => ({
        hits: [{ guardrail: "no-secrets", action: "block", direction, entity: "jwt" }],
        block: { message: "Blocked by guardrail `no-secrets` (jwt)", guardrail: "no-secrets", entity: "jwt" },
      }),
    };
    const request = await guardTexts(blocking, "request", argumentTexts({ a: "x" }), call, () => undefined).catch((error) => error);
    expect(RpcError.isInstance(request) && request.toJSON()).toEqual({
      code: -32602,
      message: "Blocked by guardrail `no-secrets` (jwt)",
      data: { reason: "guardrail_violation", guardrail: "no-secrets", entity: "jwt" },
    });
    const answer = await guardTexts(
      blocking,
      "response",
      resultTexts({ content: [{ type: "text", text: "x" }] }),
      call,
      () => undefined,
    ).catch((error) => error);
    expect(answer.code).toBe(-32004);
  });
});
