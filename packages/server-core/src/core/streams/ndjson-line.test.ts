import { describe, expect, it } from "vitest";
import { formatNdjsonLine } from "./ndjson-line.js";
import { encodeKeepAlive, encodeNdjsonLine, encodeSseFrame } from "./stream-encoding.js";

describe("formatNdjsonLine", () => {
  it("puts a value with line breaks in its strings on exactly one line", () => {
    const line = formatNdjsonLine({ text: "a\nb\r\nc", list: ["\u2028"] });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\r\n]/);
    expect(JSON.parse(line)).toEqual({ text: "a\nb\r\nc", list: ["\u2028"] });
  });

  it("writes undefined as null, never the invalid line `undefined`", () => {
    expect(formatNdjsonLine(undefined)).toBe("null\n");
    expect(formatNdjsonLine(null)).toBe("null\n");
  });

  it("frames a DataStreamEvent's NDJSON line and keep-alive, carrying what its SSE frame carries as data", () => {
    const event = { type: "tool-call" as const, id: "c1", timestamp: 1, data: { id: "c1", name: "clock", arguments: { zone: "UTC\n" } } };
    expect(encodeNdjsonLine(event)).toBe(formatNdjsonLine(event));
    expect(encodeSseFrame(event)).toBe(`event: tool-call\nid: c1\ndata: ${encodeNdjsonLine(event).trimEnd()}\n\n`);
    expect(encodeKeepAlive("ndjson")).toBe('{"type":"keep-alive"}\n');
  });
});
