import { createParser, type EventSourceMessage } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { formatSseComment as formatCoreSseComment, formatSseFrame } from "@conduit-ai/server-core/web";
import { formatSseComment, formatSseMessage } from "./sse-message.js";

function parse(text: string): { events: EventSourceMessage[]; retries: number[] } {
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event), onRetry: (retry) => retries.push(retry) });
  parser.feed(text);
  return { events, retries };
}

describe("formatSseMessage", () => {
  it("writes event, id, retry and data fields", () => {
    const text = formatSseMessage({ event: "note", id: "7", retry: 3000, data: "hello" });
    expect(text).toBe("event: note\nid: 7\nretry: 3000\ndata: hello\n\n");
    const { events, retries } = parse(text);
    expect(events).toEqual([{ event: "note", id: "7", data: "hello" }]);
    expect(retries).toEqual([3000]);
  });

  it("splits multi-line data into several data lines that the client joins back", () => {
    const text = formatSseMessage({ data: "a\nb\r\nc\rd" });
    expect(text).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
    expect(parse(text).events[0]?.data).toBe("a\nb\nc\nd");
  });

  it("cannot be used to inject another event through event or id", () => {
    const text = formatSseMessage({
      event: "x\n\nevent: evil\ndata: pwned",
      id: "1\r\ndata: evil",
      data: "ok\n\nevent: evil\ndata: pwned",
    });
    const { events } = parse(text);
    expect(events).toHaveLength(1);
    expect(events[0]?.event).toBe("xevent: evildata: pwned");
    expect(events[0]?.id).toBe("1data: evil");
    expect(events[0]?.data).toBe("ok\n\nevent: evil\ndata: pwned");
  });

  it("ignores an invalid retry", () => {
    expect(formatSseMessage({ data: "x", retry: -1 })).toBe("data: x\n\n");
    expect(formatSseMessage({ data: "x", retry: 1.5 })).toBe("data: x\n\n");
  });

  it("formats comments the client ignores", () => {
    expect(formatSseComment("keep-alive")).toBe(": keep-alive\n\n");
    expect(parse(formatSseComment("a\nb") + formatSseMessage({ data: "1" })).events).toEqual([
      { data: "1", event: undefined, id: undefined },
    ]);
  });

  it("frames exactly as the core's SSE framer every Conduit stream uses", () => {
    for (const message of [{ data: "{}" }, { event: "e\r\nx", id: "1\u0000", retry: 10, data: "a\nb" }, { data: "" }]) {
      expect(formatSseMessage(message)).toBe(formatSseFrame(message));
    }
    expect(formatSseComment("a\r\nb")).toBe(formatCoreSseComment("a\r\nb"));
  });
});
