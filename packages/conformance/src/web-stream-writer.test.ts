import type { RouteDefinition } from "@conduit-ai/server-core";
import { negotiateStreamFormat } from "@conduit-ai/server-core/web";
import { createWebStreamWriter, streamHeaders } from "@conduit-ai/streaming";
import { createParser } from "eventsource-parser";
import { expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

/** A handler that answers with its own web stream (`createWebStreamWriter({ context: ctx })`), not the core's encoder. */
const progressRoute: RouteDefinition = {
  method: "GET",
  path: "/progress",
  handler: (ctx) => {
    const format = negotiateStreamFormat(ctx.headers, ctx.query);
    const { readable, writer } = createWebStreamWriter({ format, keepAliveMs: 0, timestamps: false, context: ctx });
    void (async () => {
      await writer.writeTextStart("t1");
      await writer.writeTextDelta("t1", "two\nlines");
      await writer.writeToolCall({ id: "c1", name: "login", arguments: { password: "hunter2" } });
      await writer.writeData({ apiKey: "sk-live-4f9a1c", visible: "yes" });
      await writer.writeEvent("progress", { percent: 50, token: "tok-77aa" });
      await writer.writeDone();
    })();
    return new Response(readable, { headers: streamHeaders(format) as Record<string, string> });
  },
};

function ssePayloads(text: string): Record<string, unknown>[] {
  const payloads: Record<string, unknown>[] = [];
  createParser({ onEvent: (event) => payloads.push({ ...JSON.parse(event.data), sseEvent: event.event, sseId: event.id }) }).feed(text);
  return payloads;
}

forEachAdapter("web-stream writer", ({ start }) => {
  it("goes through config.redaction, and SSE and NDJSON carry the same events", async () => {
    const server = await start({ config: { redaction: { enabled: true } }, setup: (adapter) => adapter.registerRoute(progressRoute) });
    const sse = await fetch(server.url("/api/progress"));
    const ndjson = await fetch(server.url("/api/progress"), { headers: { accept: "application/x-ndjson" } });
    expect(sse.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(ndjson.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const [sseText, ndjsonText] = await Promise.all([sse.text(), ndjson.text()]);
    for (const secret of ["hunter2", "sk-live-4f9a1c", "tok-77aa"]) {
      expect(sseText).not.toContain(secret);
      expect(ndjsonText).not.toContain(secret);
    }
    const lines = ndjsonText
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { type: "text-start", id: "t1", data: {} },
      { type: "text-delta", id: "t1", data: { delta: "two\nlines" } },
      { type: "tool-call", id: "c1", data: { id: "c1", name: "login", arguments: "[REDACTED]" } },
      { type: "data", data: { apiKey: "[REDACTED]", visible: "yes" } },
      { type: "progress", data: { percent: 50, token: "[REDACTED]" } },
      { type: "finish", data: { reason: "stop" } },
    ]);
    // SSE: the same object as `data:`, its type as `event:` and its id as `id:`.
    expect(ssePayloads(sseText)).toEqual(lines.map((line) => ({ ...line, sseEvent: line.type, sseId: line.id })));
  });
});
