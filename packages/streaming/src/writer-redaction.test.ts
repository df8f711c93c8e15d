import type { ServerContext } from "@conduit-ai/server-core";
import { type StreamFormat, negotiateStreamFormat, streamHeaders } from "@conduit-ai/server-core/web";
import { createTestApp } from "@conduit-ai/server-core/testing";
import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { createStreamResponse } from "./data-stream-response.js";
import { createWebStreamWriter } from "./web-stream-writer.js";

const SECRETS = ["sk-live-4f9a1c", "tok-77aa", "hunter2", "Bearer eyJhbGciOi"];

/** What a client reads: the JSON each SSE `data:` or NDJSON line carries. */
function payloads(text: string, format: StreamFormat): Record<string, unknown>[] {
  if (format === "ndjson")
    return text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
  const events: Record<string, unknown>[] = [];
  createParser({ onEvent: (event) => events.push(JSON.parse(event.data)) }).feed(text);
  return events;
}

async function writeSecrets(writer: {
  writeData(data: unknown): Promise<void>;
  writeToolCall(call: { id: string; name: string; arguments: Record<string, unknown> }): Promise<void>;
}): Promise<void> {
  await writer.writeData({ apiKey: SECRETS[0], visible: "yes", nested: [{ token: SECRETS[1] }] });
  await writer.writeToolCall({ id: "c1", name: "login", arguments: { user: "ada", password: SECRETS[2] } });
}

/** The socket-free pipeline with `config.redaction` on, serving `respond(ctx, format)` at /api/stream. */
function appWithRedaction(respond: (ctx: ServerContext, format: StreamFormat) => Response) {
  return createTestApp({
    config: { redaction: { enabled: true, additionalFields: ["session"] } },
    routes: [{ method: "GET", path: "/stream", handler: (ctx) => respond(ctx, negotiateStreamFormat(ctx.headers, ctx.query)) }],
  });
}

describe("streams built with the writers go through config.redaction", () => {
  it("createWebStreamWriter({ context }) redacts a secret in SSE and in NDJSON alike", async () => {
    const app = appWithRedaction((ctx, format) => {
      const { readable, writer } = createWebStreamWriter({ format, keepAliveMs: 0, timestamps: false, context: ctx });
      void (async () => {
        await writeSecrets(writer);
        await writer.writeEvent("login", { session: SECRETS[3], step: 2 });
        await writer.writeDone();
      })();
      return new Response(readable, { headers: streamHeaders(format) as Record<string, string> });
    });
    const read: Record<StreamFormat, Record<string, unknown>[]> = { sse: [], ndjson: [] };
    for (const format of ["sse", "ndjson"] as const) {
      const response = await app.request({ url: `/api/stream?format=${format}` });
      expect(response.headers["content-type"]).toBe(streamHeaders(format)["content-type"]);
      for (const secret of SECRETS) expect(response.text, `${format} leaks ${secret}`).not.toContain(secret);
      read[format] = payloads(response.text, format);
    }
    expect(read.sse).toEqual([
      { type: "data", data: { apiKey: "[REDACTED]", visible: "yes", nested: [{ token: "[REDACTED]" }] } },
      { type: "tool-call", id: "c1", data: { id: "c1", name: "login", arguments: "[REDACTED]" } },
      { type: "login", data: { session: "[REDACTED]", step: 2 } },
      { type: "finish", data: { reason: "stop" } },
    ]);
    expect(read.ndjson).toEqual(read.sse);
  });

  it("DataStreamResponse.encode() with the context redacts like the core-served stream, in both formats", async () => {
    const app = appWithRedaction((ctx, format) => {
      const stream = createStreamResponse({ keepAliveMs: 0, context: ctx, execute: (writer) => writeSecrets(writer) });
      const encoder = new TextEncoder();
      const chunks = stream.encode(format);
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        },
      });
      return new Response(body, { headers: streamHeaders(format) as Record<string, string> });
    });
    for (const format of ["sse", "ndjson"] as const) {
      const text = (await app.request({ url: `/api/stream?format=${format}` })).text;
      for (const secret of SECRETS) expect(text, `${format} leaks ${secret}`).not.toContain(secret);
      expect(payloads(text, format)).toMatchObject([
        { type: "data", data: { apiKey: "[REDACTED]", visible: "yes", nested: [{ token: "[REDACTED]" }] } },
        { type: "tool-call", data: { arguments: "[REDACTED]" } },
        { type: "finish" },
      ]);
    }
  });
});
