import { describe, expect, it } from "vitest";
import { formatSseFrame } from "./sse-frame.js";
import { encodeSseFrame } from "./stream-encoding.js";

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

  it("is what a DataStreamEvent's SSE frame is built from", () => {
    const event = { type: "text-delta" as const, timestamp: 1, id: "e1", data: { delta: "hi" } };
    expect(encodeSseFrame(event)).toBe(`event: text-delta\nid: e1\ndata: ${JSON.stringify(event)}\n\n`);
    const bare = { type: "finish" as const, timestamp: 2, data: {} };
    expect(encodeSseFrame(bare)).toBe(`event: finish\ndata: ${JSON.stringify(bare)}\n\n`);
  });
});
