import type { Logger, RouteDefinition } from "@conduit-ai/server-core";
import { createStreamRedactionMiddleware, createStreamResponse } from "@conduit-ai/streaming";
import { type EventSourceMessage, createParser } from "eventsource-parser";
import { expect, it } from "vitest";
import { forEachAdapter, rawRequest, sleep } from "./harness.js";

function parseSse(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  createParser({ onEvent: (event) => events.push(event) }).feed(text);
  return events;
}

const answerRoute: RouteDefinition = {
  method: "GET",
  path: "/stream/answer",
  streaming: true,
  handler: (ctx) =>
    createStreamResponse({
      signal: ctx.abortSignal,
      execute: async (stream) => {
        await stream.writeTextStart("t1");
        await stream.writeTextDelta("t1", "Hello");
        await stream.writeTextDelta("t1", ", world\nsecond line");
        await stream.writeTextEnd("t1");
        await stream.writeToolCall({ id: "c1", name: "lookup", arguments: { query: "cats", token: "tok-1" } });
        await stream.writeToolResult({ id: "c1", name: "lookup", result: { hits: 3 } });
        await stream.writeData({ apiKey: "sk-secret", visible: "yes" });
        await stream.finish({ reason: "stop", usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } });
      },
    }),
};

const TEXT_ORDER = ["text-start", "text-delta", "text-delta", "text-end", "tool-call", "tool-result", "data", "finish"];

forEachAdapter("streaming", ({ start }) => {
  it("serves SSE frames with event, id and the whole DataStreamEvent as data, in order", async () => {
    const server = await start({ setup: (adapter) => adapter.registerRoute(answerRoute) });
    const response = await fetch(server.url("/api/stream/answer"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const events = parseSse(await response.text());
    expect(events.map((event) => event.event)).toEqual(TEXT_ORDER);
    const payloads = events.map((event) => JSON.parse(event.data));
    for (const [index, payload] of payloads.entries()) {
      expect(payload.type).toBe(events[index]?.event);
      expect(typeof payload.timestamp).toBe("number");
      if (payload.id !== undefined) expect(events[index]?.id).toBe(payload.id);
    }
    expect(events[0]?.id).toBe("t1");
    expect(payloads[2].data.delta).toBe(", world\nsecond line");
    expect(payloads[4].data).toEqual({ id: "c1", name: "lookup", arguments: { query: "cats", token: "tok-1" } });
    expect(payloads[7].data).toEqual({ reason: "stop", usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } });
  });

  it("serves NDJSON when asked through Accept or ?format=ndjson", async () => {
    const server = await start({ setup: (adapter) => adapter.registerRoute(answerRoute) });
    for (const [path, headers] of [
      ["/api/stream/answer", { accept: "application/x-ndjson" }],
      ["/api/stream/answer?format=ndjson", {}],
    ] as const) {
      const response = await fetch(server.url(path), { headers });
      expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
      expect(response.headers.get("x-accel-buffering")).toBe("no");
      const text = await response.text();
      expect(text.endsWith("\n")).toBe(true);
      const lines = text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => line.type)).toEqual(TEXT_ORDER);
    }
  });

  it("a failure mid-stream sends a STREAM_ERROR event last, then closes", async () => {
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/stream/broken",
          handler: () =>
            createStreamResponse({
              execute: async (stream) => {
                await stream.writeTextStart("t1");
                await stream.writeTextDelta("t1", "partial");
                throw new Error("provider exploded with secret detail");
              },
            }),
        }),
    });
    const response = await fetch(server.url("/api/stream/broken"));
    const text = await response.text();
    const events = parseSse(text);
    expect(events.map((event) => event.event)).toEqual(["text-start", "text-delta", "error"]);
    const error = JSON.parse(events[2]?.data ?? "");
    expect(error.data.code).toBe("STREAM_ERROR");
    expect(text).not.toContain("secret detail");
  });

  it("a client disconnect aborts the handler's signal and is recorded, not an error", async () => {
    const seen: { reason?: unknown; logs: string[]; errorEvents: number; statuses: number[] } = { logs: [], errorEvents: 0, statuses: [] };
    let aborted!: () => void;
    const abortedPromise = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const server = await start({
      setup: (adapter) => {
        const record = (level: string) => (object: object, message?: string) =>
          seen.logs.push(`${level}:${message}:${JSON.stringify(object)}`);
        adapter.handler.logger = {
          debug: record("debug"),
          info: record("info"),
          warn: record("warn"),
          error: record("error"),
        } satisfies Logger;
        adapter.on("error", () => seen.errorEvents++);
        adapter.on("response", (event: { statusCode: number }) => seen.statuses.push(event.statusCode));
        adapter.registerRoute({
          method: "GET",
          path: "/stream/forever",
          handler: (ctx) => {
            ctx.abortSignal.addEventListener("abort", () => {
              seen.reason = ctx.abortSignal.reason;
              aborted();
            });
            return (async function* () {
              for (let index = 0; ; index++) {
                yield { type: "data", timestamp: Date.now(), data: { index } };
                await sleep(5);
              }
            })();
          },
        });
      },
    });
    const controller = new AbortController();
    const response = await fetch(server.url("/api/stream/forever"), { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await Promise.race([abortedPromise, sleep(3000).then(() => Promise.reject(new Error("handler was not aborted")))]);
    expect((seen.reason as { code?: string }).code).toBe("STREAM_ABORTED");
    await sleep(50);
    expect(seen.logs.some((line) => line.startsWith("info:") && line.includes("STREAM_ABORTED"))).toBe(true);
    expect(seen.logs.some((line) => line.startsWith("error:"))).toBe(false);
    expect(seen.errorEvents).toBe(0);
    expect(seen.statuses).toContain(499);
  });

  it("a handler that first looks at its signal after the client left finds it aborted", async () => {
    let looked!: (seen: { aborted: boolean; code?: string }) => void;
    const lookedPromise = new Promise<{ aborted: boolean; code?: string }>((resolve) => {
      looked = resolve;
    });
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/late-look",
          handler: async (ctx) => {
            await sleep(250);
            looked({ aborted: ctx.abortSignal.aborted, code: (ctx.abortSignal.reason as { code?: string } | undefined)?.code });
            return { late: true };
          },
        }),
    });
    const controller = new AbortController();
    const request = fetch(server.url("/api/late-look"), { signal: controller.signal }).catch(() => undefined);
    await sleep(60);
    controller.abort();
    await request;
    expect(await lookedPromise).toEqual({ aborted: true, code: "STREAM_ABORTED" });
  });

  it("sends keep-alive comments on an idle stream", async () => {
    const server = await start({
      config: { streaming: { keepAliveMs: 40 } },
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/stream/slow",
          handler: () =>
            createStreamResponse({
              execute: async (stream) => {
                await sleep(250);
                await stream.finish();
              },
            }),
        }),
    });
    const sse = await (await fetch(server.url("/api/stream/slow"))).text();
    expect(sse).toContain(": keep-alive\n\n");
    expect(parseSse(sse).map((event) => event.event)).toEqual(["finish"]);
    const ndjson = await (await fetch(server.url("/api/stream/slow?format=ndjson"))).text();
    const lines = ndjson
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.some((line) => line.type === "keep-alive")).toBe(true);
    expect(lines.at(-1).type).toBe("finish");
  });

  it("honours a DataStreamResponse's own keepAliveMs over the server's", async () => {
    const slow = (path: string, keepAliveMs: number): RouteDefinition => ({
      method: "GET",
      path,
      handler: () =>
        createStreamResponse({
          keepAliveMs,
          execute: async (stream) => {
            await sleep(250);
            await stream.finish();
          },
        }),
    });
    const server = await start({
      // The server's interval would send nothing within the test; the stream's own must.
      config: { streaming: { keepAliveMs: 60_000 } },
      setup: (adapter) => adapter.registerRoute(slow("/stream/own-interval", 40)),
    });
    const own = await (await fetch(server.url("/api/stream/own-interval"))).text();
    expect(own).toContain(": keep-alive\n\n");
    expect(parseSse(own).map((event) => event.event)).toEqual(["finish"]);
    const quiet = await start({
      config: { streaming: { keepAliveMs: 40 } },
      setup: (adapter) => adapter.registerRoute(slow("/stream/no-keep-alive", 0)),
    });
    const none = await (await fetch(quiet.url("/api/stream/no-keep-alive"))).text();
    expect(none).not.toContain("keep-alive");
    expect(parseSse(none).map((event) => event.event)).toEqual(["finish"]);
  });

  it("honors backpressure: a client that does not read holds the writer back", async () => {
    let written = 0;
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/stream/firehose",
          handler: (ctx) =>
            createStreamResponse({
              signal: ctx.abortSignal,
              execute: async (stream) => {
                const chunk = "x".repeat(64 * 1024);
                for (let index = 0; index < 5000 && !stream.isClosed(); index++) {
                  await stream.writeData(chunk);
                  written++;
                }
              },
            }),
        }),
    });
    const { request } = await import("node:http");
    const paused = await new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
      const outgoing = request({ host: "127.0.0.1", port: server.port, path: "/api/stream/firehose" }, (response) => {
        response.pause();
        resolve(response);
      });
      outgoing.on("error", reject);
      outgoing.end();
    });
    await sleep(600);
    const heldBack = written;
    // 5 000 × 64 KB = 320 MB if nothing pushed back; socket buffers hold only a few MB.
    expect(heldBack).toBeLessThan(400);
    paused.destroy();
  });

  it("config.redaction redacts streamed events when enabled and leaves them alone when disabled", async () => {
    for (const enabled of [true, false]) {
      const server = await start({ config: { redaction: { enabled } }, setup: (adapter) => adapter.registerRoute(answerRoute) });
      const payloads = parseSse(await (await fetch(server.url("/api/stream/answer"))).text()).map((event) => JSON.parse(event.data));
      const toolCall = payloads.find((payload) => payload.type === "tool-call");
      const toolResult = payloads.find((payload) => payload.type === "tool-result");
      const data = payloads.find((payload) => payload.type === "data");
      if (enabled) {
        expect(toolCall.data.arguments).toBe("[REDACTED]");
        expect(toolResult.data.result).toBe("[REDACTED]");
        expect(data.data).toEqual({ apiKey: "[REDACTED]", visible: "yes" });
      } else {
        expect(toolCall.data.arguments).toEqual({ query: "cats", token: "tok-1" });
        expect(toolResult.data.result).toEqual({ hits: 3 });
        expect(data.data).toEqual({ apiKey: "sk-secret", visible: "yes" });
      }
      expect(payloads.at(-1).type).toBe("finish");
      await server.adapter.stop();
    }
  });

  it("the stream redaction middleware redacts only the routes it covers, NDJSON included", async () => {
    const server = await start({
      setup: (adapter) => {
        adapter.registerRoute(answerRoute);
        adapter.registerRoute({ ...answerRoute, path: "/open/answer" });
        adapter.registerMiddleware({
          ...createStreamRedactionMiddleware({ enabled: true, redactToolArgs: false }),
          paths: ["/api/stream/*"],
        });
      },
    });
    const redacted = (await (await fetch(server.url("/api/stream/answer?format=ndjson"))).text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(redacted.find((line) => line.type === "tool-call").data.arguments).toEqual({ query: "cats", token: "[REDACTED]" });
    expect(redacted.find((line) => line.type === "data").data.apiKey).toBe("[REDACTED]");
    const open = parseSse(await (await fetch(server.url("/api/open/answer"))).text()).map((event) => JSON.parse(event.data));
    expect(open.find((payload) => payload.type === "data").data.apiKey).toBe("sk-secret");
  });

  it("a handler returning a plain async generator gets the finish guarantee", async () => {
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/stream/plain",
          handler: async function* () {
            yield { type: "text-delta", id: "t", data: { delta: "a" } };
            yield { anything: "else" };
          },
        }),
    });
    const response = await rawRequest(server.port, { path: "/api/stream/plain" });
    expect(parseSse(response.body).map((event) => event.event)).toEqual(["text-delta", "data", "finish"]);
  });
});
