import { describe, expect, it } from "vitest";
import { mcpTraceHeaders } from "./mcp-trace-context.js";

const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("mcpTraceHeaders", () => {
  it("copies params._meta's traceparent and tracestate", () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "t", _meta: { traceparent, tracestate: "a=b" } },
    });
    expect(mcpTraceHeaders(body)).toEqual({ traceparent, tracestate: "a=b" });
  });

  it("gives nothing for a body without one, a non-string field, broken JSON or a non-string body", () => {
    expect(mcpTraceHeaders(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).toEqual({});
    expect(mcpTraceHeaders(JSON.stringify({ params: { _meta: { traceparent: 5 } } }))).toEqual({});
    expect(mcpTraceHeaders('{"traceparent": ')).toEqual({});
    expect(mcpTraceHeaders(undefined)).toEqual({});
  });
});
