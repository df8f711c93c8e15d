import { describe, expect, it } from "vitest";
import { parseIncoming } from "./json-rpc-message.js";

describe("a client's response to a request of the gateway", () => {
  it("carries its result, or its error with the code kept and the message bounded", () => {
    expect(parseIncoming({ jsonrpc: "2.0", id: "conduit-1", result: { roots: [] } })).toEqual({
      kind: "response",
      message: { id: "conduit-1", result: { roots: [] } },
    });
    expect(parseIncoming({ jsonrpc: "2.0", id: 3, error: { code: -1, message: "x".repeat(5_000), data: { why: "no" } } })).toEqual({
      kind: "response",
      message: { id: 3, error: { code: -1, message: "x".repeat(1_000), data: { why: "no" } } },
    });
    expect(parseIncoming({ jsonrpc: "2.0", id: 4, error: { code: "bad" } })).toMatchObject({
      message: { error: { code: -32603, message: "Error" } },
    });
  });

  it("a result that is not an object is not a response", () => {
    expect(() => parseIncoming({ jsonrpc: "2.0", id: 5, result: 42 })).toThrow(/needs a method/);
  });
});
