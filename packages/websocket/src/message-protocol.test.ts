import { describe, expect, it } from "vitest";
import { parseClientMessage } from "./message-protocol.js";

describe("parseClientMessage", () => {
  it("accepts {type, id?, payload}", () => {
    expect(parseClientMessage('{"type":"generate","id":"1","payload":{"a":1}}')).toEqual({
      ok: true,
      message: { type: "generate", id: "1", payload: { a: 1 } },
    });
    expect(parseClientMessage('{"type":"ping"}')).toEqual({ ok: true, message: { type: "ping", payload: undefined } });
  });

  it("reports invalid JSON, non-objects, missing type and bad ids", () => {
    expect(parseClientMessage("{oops")).toMatchObject({ ok: false, code: "VALIDATION_ERROR", id: null });
    expect(parseClientMessage("[1]")).toMatchObject({ ok: false, code: "VALIDATION_ERROR" });
    expect(parseClientMessage("null")).toMatchObject({ ok: false, code: "VALIDATION_ERROR" });
    expect(parseClientMessage('{"id":"7"}')).toMatchObject({ ok: false, id: "7", message: "Message type is required" });
    expect(parseClientMessage('{"type":"x","id":5}')).toMatchObject({ ok: false, code: "VALIDATION_ERROR" });
    expect(parseClientMessage(JSON.stringify({ type: "x", id: "i".repeat(201) }))).toMatchObject({ ok: false });
  });
});
