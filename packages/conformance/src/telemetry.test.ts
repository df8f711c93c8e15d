import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@conduit-ai/fakes";
import { getTracing } from "@conduit-ai/server-core";
import { type TelemetryHandle, startTelemetry } from "@conduit-ai/telemetry";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachAdapter, rawRequest, sleep } from "./harness.js";

// Traces and process metrics as a client and a collector see them, on every adapter: the server
// span continues the caller's trace whatever the framework's router, a stream's span ends with
// the stream, and /api/metrics carries the process figures.
const PARENT = "00f067aa0ba902b7";
let receiver: OtlpReceiver;
let telemetry: TelemetryHandle | undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  telemetry = await startTelemetry({ environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, exportImmediately: true });
});
afterAll(async () => {
  await telemetry?.shutdown();
  await receiver.close();
});

/** A random 32-hex trace id per test, so adapters running one after another never share spans. */
const newTraceId = () => Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join("");
const serverSpanOf = (traceId: string) => (spans: ReceivedSpan[]) => spans.find((span) => span.traceId === traceId && span.kind === 2);

forEachAdapter("telemetry", ({ start }) => {
  it("continues the caller's W3C trace: the server span has the incoming parent, the route template and the request id", async () => {
    expect(getTracing().enabled).toBe(true);
    const server = await start({
      setup: (adapter) => adapter.registerRoute({ method: "GET", path: "/items/:id", handler: (ctx) => ({ id: ctx.params.id }) }),
    });
    const traceId = newTraceId();
    const response = await fetch(server.url("/api/items/42?token=secret-query"), {
      headers: { traceparent: `00-${traceId}-${PARENT}-01`, tracestate: "congo=t61rcWkgMzE" },
    });
    expect(response.status).toBe(200);
    const find = serverSpanOf(traceId);
    await receiver.waitFor((spans) => find(spans) !== undefined);
    const span = find(receiver.spans) as ReceivedSpan;
    expect(span).toMatchObject({ name: "GET /api/items/:id", parentSpanId: PARENT });
    expect(span.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/api/items/:id",
      "url.path": "/api/items/42",
      "http.response.status_code": 200,
      "server.address": "127.0.0.1",
      "server.port": server.port,
      "conduit.request_id": response.headers.get("x-request-id"),
    });
    // The query string may carry credentials: never recorded.
    expect(JSON.stringify(span)).not.toContain("secret-query");
  });

  it("starts a new trace for a malformed traceparent, and marks a 404 by method only and a 500 as an error", async () => {
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/boom",
          handler: () => {
            throw new Error("kaput");
          },
        }),
    });
    const missing = await rawRequest(server.port, { path: "/api/nowhere", headers: { traceparent: "00-not-a-trace-01" } });
    expect(missing.status).toBe(404);
    const requestId = String(missing.headers["x-request-id"]);
    await receiver.waitFor((spans) => spans.some((span) => span.attributes["conduit.request_id"] === requestId));
    const notFound = receiver.spans.find((span) => span.attributes["conduit.request_id"] === requestId) as ReceivedSpan;
    expect(notFound).toMatchObject({ name: "GET", parentSpanId: "" });
    expect(notFound.attributes["http.response.status_code"]).toBe(404);
    expect(notFound.status.code).toBe(0);

    const traceId = newTraceId();
    const failed = await fetch(server.url("/api/boom"), { headers: { traceparent: `00-${traceId}-${PARENT}-01` } });
    expect(failed.status).toBe(500);
    const find = serverSpanOf(traceId);
    await receiver.waitFor((spans) => find(spans) !== undefined);
    expect(find(receiver.spans)).toMatchObject({ status: { code: 2 }, attributes: { "error.type": "500" } });
  });

  it("ends a stream's span when the stream ends, not when its headers leave", async () => {
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/slow-stream",
          streaming: true,
          handler: async function* () {
            yield { type: "text-delta", data: { delta: "a" } };
            await sleep(300);
            yield { type: "finish", data: { reason: "stop" } };
          },
        }),
    });
    const traceId = newTraceId();
    const response = await fetch(server.url("/api/slow-stream"), { headers: { traceparent: `00-${traceId}-${PARENT}-01` } });
    expect(await response.text()).toContain("finish");
    const find = serverSpanOf(traceId);
    await receiver.waitFor((spans) => find(spans) !== undefined);
    const span = find(receiver.spans) as ReceivedSpan;
    expect(span.name).toBe("GET /api/slow-stream");
    expect(Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e6).toBeGreaterThanOrEqual(250);
  });

  it("/api/metrics carries the process figures (CPU, resident memory, heap, event-loop lag, GC) with bounded labels", async () => {
    // Scraped anonymously: public only by the operator's choice (metrics-access.test.ts).
    const server = await start({ config: { metrics: { public: true } } });
    const text = await (await fetch(server.url("/api/metrics"))).text();
    for (const name of [
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
      "nodejs_heap_size_total_bytes",
      "nodejs_eventloop_lag_seconds",
    ]) {
      expect(text).toMatch(new RegExp(`^${name} [0-9.e+-]+$`, "m"));
    }
    expect(text).toContain("# TYPE nodejs_gc_duration_seconds histogram");
    for (const line of text.split("\n").filter((candidate) => candidate.startsWith("nodejs_gc_duration_seconds_count"))) {
      expect(line).toMatch(/^nodejs_gc_duration_seconds_count\{kind="(major|minor|incremental|weakcb)"\} \d+$/);
    }
    const resident = Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1]);
    expect(resident).toBeGreaterThan(10 * 1024 * 1024);
  });
});
