import { describe, expect, it } from "vitest";
import { formatSseComment, formatSseFrame } from "./sse-frame.js";
import { encodeKeepAlive, encodeSseFrame } from "./stream-encoding.js";

describe("formatSseFrame", () => {
  it("frames a bare data message as OpenAI's chat stream sends it", () => {
    expect(formatSseFrame({ data: '{"a":1}' })).toBe('data: {"a":1}\n\n');
    expect(formatSseFrame({ data: "[DONE]" })).toBe("data: [DONE]\n\n");
  });

  it("writes event, id, retry and data in that order", () => {
    expect(formatSseFrame({ event: "note", id: "7", retry: 3000, data: "{}" })).toBe("event: note\nid: 7\nretry: 3000\ndata: {}\n\n");
  });

  it("splits multi-line data into data lines", () => {
    expect(formatSseFrame({ data: "a\r\nb\rc\nd" })).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
  });

  it("strips line breaks from event and id so no field starts another event, and NUL from id", () => {
    expect(formatSseFrame({ event: "x\ndata: injected", id: "1\r\n2\u0000", data: "{}" })).toBe(
      "event: xdata: injected\nid: 12\ndata: {}\n\n",
    );
  });

  it("sends retry only when a non-negative integer", () => {
    expect(formatSseFrame({ retry: -1, data: "x" })).toBe("data: x\n\n");
    expect(formatSseFrame({ retry: 1.5, data: "x" })).toBe("data: x\n\n");
  });

  it("frames fields without data as a block the client reads but dispatches no event for", () => {
    // A block without `data:` sets the client's retry (or last id) and dispatches nothing (HTML §9.2.6).
    expect(formatSseFrame({ retry: 3000 })).toBe("retry: 3000\n\n");
    expect(formatSseFrame({ id: "7" })).toBe("id: 7\n\n");
  });

  it("is what a DataStreamEvent's SSE frame is built from", () => {
    const event = { type: "text-delta" as const, timestamp: 1, id: "e1", data: { delta: "hi" } };
    expect(encodeSseFrame(event)).toBe(`event: text-delta\nid: e1\ndata: ${JSON.stringify(event)}\n\n`);
    const bare = { type: "finish" as const, timestamp: 2, data: {} };
    expect(encodeSseFrame(bare)).toBe(`event: finish\ndata: ${JSON.stringify(bare)}\n\n`);
  });
});

describe("formatSseComment", () => {
  it("prefixes every line (blank ones too) so no comment text can become a field or end the block", () => {
    expect(formatSseComment("keep-alive")).toBe(": keep-alive\n\n");
    expect(formatSseComment("a\n\ndata: injected\r\nevent: evil")).toBe(": a\n: \n: data: injected\n: event: evil\n\n");
  });

  it("is the SSE keep-alive", () => {
    expect(encodeKeepAlive("sse")).toBe(formatSseComment("keep-alive"));
  });
});
