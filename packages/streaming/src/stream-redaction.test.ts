import type { DataStreamEvent } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { redactStreamEvent } from "./index.js";

const event = (type: DataStreamEvent["type"], data: unknown): DataStreamEvent => ({ type, timestamp: 1, data });

describe("redactStreamEvent", () => {
  it("replaces the default fields at any depth", () => {
    const input = event("data", {
      keep: "visible",
      apiKey: "sk-1",
      nested: { token: "t", deeper: [{ password: "p", Authorization: "Bearer x", ok: 1 }] },
      credentials: { user: "u" },
      secret: "s",
      request: { body: 1 },
      args: [1],
      result: 2,
    });
    expect(redactStreamEvent(input, { enabled: true }).data).toEqual({
      keep: "visible",
      apiKey: "[REDACTED]",
      nested: { token: "[REDACTED]", deeper: [{ password: "[REDACTED]", Authorization: "[REDACTED]", ok: 1 }] },
      credentials: "[REDACTED]",
      secret: "[REDACTED]",
      request: "[REDACTED]",
      args: "[REDACTED]",
      result: "[REDACTED]",
    });
    expect((input.data as { apiKey: string }).apiKey).toBe("sk-1");
  });

  it("passes events unchanged when disabled", () => {
    const input = event("data", { token: "t" });
    expect(redactStreamEvent(input, { enabled: false })).toBe(input);
    expect(redactStreamEvent(input, {})).toBe(input);
  });

  it("adds additionalFields, keeps preserveFields and uses the placeholder", () => {
    const input = event("data", { ssn: "1", token: "t", email: "e" });
    expect(
      redactStreamEvent(input, { enabled: true, additionalFields: ["ssn"], preserveFields: ["token"], placeholder: "***" }).data,
    ).toEqual({
      ssn: "***",
      token: "t",
      email: "e",
    });
  });

  it("redacts tool arguments and tool results whole by default, and not when turned off", () => {
    const call = event("tool-call", { id: "c1", name: "search", arguments: { query: "cats", password: "p" } });
    const result = event("tool-result", { id: "c1", name: "search", result: { hits: 3 } });
    expect(redactStreamEvent(call, { enabled: true }).data).toEqual({ id: "c1", name: "search", arguments: "[REDACTED]" });
    expect(redactStreamEvent(result, { enabled: true }).data).toEqual({ id: "c1", name: "search", result: "[REDACTED]" });
    const off = { enabled: true, redactToolArgs: false, redactToolResults: false };
    expect(redactStreamEvent(call, off).data).toEqual({ id: "c1", name: "search", arguments: { query: "cats", password: "[REDACTED]" } });
    expect(redactStreamEvent(result, off).data).toEqual({ id: "c1", name: "search", result: { hits: 3 } });
  });

  it("survives deeply nested payloads", () => {
    let deep: Record<string, unknown> = { token: "t" };
    for (let index = 0; index < 10_000; index++) deep = { next: deep };
    expect(() => redactStreamEvent(event("data", deep), { enabled: true })).not.toThrow();
  });
});
