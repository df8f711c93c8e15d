import { type OtlpReceiver, startOtlpReceiver } from "@conduit-ai/fakes";
import { type IncomingMessage, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getTracing } from "@conduit-ai/server-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type TelemetryHandle, startTelemetry } from "../../index.js";
import { TELEMETRY_SDKS } from "../../settings/telemetry-settings.js";

let receiver: OtlpReceiver;
let telemetry: TelemetryHandle | undefined;
let warnings: string[] = [];

async function trace(environment: Record<string, string>, exportImmediately = false): Promise<void> {
  warnings = [];
  receiver.clear();
  telemetry = await startTelemetry({
    environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: "60000", ...environment },
    exportImmediately,
    onWarning: (message) => warnings.push(message),
  });
}

const endSpans = (count: number) => {
  for (let index = 0; index < count; index++) getTracing().startSpan(`span ${index}`).end();
};

/** A collector in front of the receiver answering `failures` first (then passing exports on), counting what it saw. */
async function startFlakyCollector(failures: Array<{ status: number; headers?: Record<string, string> }>) {
  const seen: IncomingMessage["headers"][] = [];
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    seen.push(request.headers);
    const failure = failures.shift();
    if (failure) return void response.writeHead(failure.status, failure.headers).end("try later");
    const forwarded = await fetch(`${receiver.endpoint}/v1/traces`, {
      method: "POST",
      headers: {
        "content-type": request.headers["content-type"] ?? "",
        "content-encoding": request.headers["content-encoding"] ?? "identity",
      },
      body: Buffer.concat(chunks),
    });
    response.writeHead(forwarded.status).end(Buffer.from(await forwarded.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});
afterAll(() => receiver.close());

describe("batching and export", () => {
  it("600 spans: a full batch of 512 goes at once (not inside end()), the other 88 on flush", async () => {
    await trace({});
    endSpans(600);
    expect(receiver.exports).toHaveLength(0);
    await receiver.waitFor((spans) => spans.length === 512);
    expect(receiver.exports).toHaveLength(1);
    await telemetry?.forceFlush();
    expect(receiver.exports).toHaveLength(2);
    expect(receiver.spans).toHaveLength(600);
    expect(new Set(receiver.spans.map((span) => span.name)).size).toBe(600);
  });

  // Both engines read OTEL_BSP_* from the environment given (OpenTelemetry's SDK alone reads process.env, default 5 s).
  it.each(TELEMETRY_SDKS)("the schedule delay exports what is pending (%s engine)", async (sdk) => {
    await trace({ OTEL_BSP_SCHEDULE_DELAY: "50", CONDUIT_TELEMETRY_SDK: sdk });
    endSpans(3);
    await receiver.waitFor((spans) => spans.length === 3, 2000);
    expect(receiver.exports).toHaveLength(1);
  });

  it("a full queue drops spans and says how many, once per export round", async () => {
    await trace({ OTEL_BSP_MAX_QUEUE_SIZE: "100", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "50" });
    endSpans(250);
    await telemetry?.forceFlush();
    expect(receiver.spans).toHaveLength(100);
    expect(receiver.exports).toHaveLength(2);
    expect(warnings).toEqual([expect.stringContaining("dropped 150 spans")]);
    endSpans(10);
    await telemetry?.forceFlush();
    expect(receiver.spans).toHaveLength(110);
    expect(warnings).toHaveLength(1);
  });

  it("retries a 503 (as Retry-After says) and a 429, then delivers with the configured headers", async () => {
    const collector = await startFlakyCollector([{ status: 503, headers: { "retry-after": "0" } }, { status: 429 }]);
    try {
      await trace({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20secret-token,x-team=ops",
      });
      endSpans(2);
      await telemetry?.forceFlush();
      expect(collector.seen).toHaveLength(3);
      expect(collector.seen.every((headers) => headers.authorization === "Bearer secret-token" && headers["x-team"] === "ops")).toBe(true);
      expect(receiver.spans).toHaveLength(2);
      expect(warnings).toEqual([]);
    } finally {
      collector.close();
    }
  });

  it("gzip: a batch is compressed once and the same body goes again on a retry", async () => {
    const failures: Array<{ status: number }> = [];
    const collector = await startFlakyCollector(failures);
    try {
      await trace({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
      endSpans(300);
      await telemetry?.forceFlush();
      await telemetry?.shutdown();
      const plainLength = Number(collector.seen[0]?.["content-length"]);
      expect(collector.seen[0]?.["content-encoding"]).toBeUndefined();

      failures.push({ status: 502 });
      await trace({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "gzip" });
      endSpans(300);
      await telemetry?.forceFlush();
      const gzipped = collector.seen.slice(1);
      expect(gzipped.map((headers) => headers["content-encoding"])).toEqual(["gzip", "gzip"]);
      const lengths = gzipped.map((headers) => Number(headers["content-length"]));
      expect(lengths[0]).toBe(lengths[1]);
      expect(lengths[0]).toBeLessThan(plainLength * 0.8);
      expect(receiver.spans).toHaveLength(300);
    } finally {
      collector.close();
    }
  });

  it("a refused export is not retried; its warning comes once per kind and never carries the headers", async () => {
    const collector = await startFlakyCollector([{ status: 401 }, { status: 401 }]);
    try {
      await trace({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_HEADERS: "authorization=secret-token" }, true);
      endSpans(1);
      await telemetry?.forceFlush();
      endSpans(1);
      await telemetry?.forceFlush();
      expect(collector.seen).toHaveLength(2);
      expect(warnings).toEqual([expect.stringContaining("HTTP 401")]);
      expect(warnings.join()).not.toContain("secret-token");
    } finally {
      collector.close();
    }
  });

  it("retries a collector that cannot be reached until the export timeout, then warns once", async () => {
    const closed = await startFlakyCollector([]);
    closed.close();
    await trace({ OTEL_EXPORTER_OTLP_ENDPOINT: closed.url, OTEL_BSP_EXPORT_TIMEOUT: "500" });
    const started = Date.now();
    endSpans(1);
    await telemetry?.forceFlush();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(warnings).toEqual([expect.stringMatching(/network error ECONNREFUSED.*(no time left|attempts)/)]);
  });

  it("a collector that takes the request and never answers: each request ends at OTEL_EXPORTER_OTLP_TIMEOUT, retried until the export timeout", async () => {
    let requests = 0;
    const silent = createServer(() => {
      requests++;
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      await trace({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_TIMEOUT: "150", OTEL_BSP_EXPORT_TIMEOUT: "1000" });
      const started = Date.now();
      endSpans(1);
      await telemetry?.forceFlush();
      expect(Date.now() - started).toBeLessThan(3000);
      expect(requests).toBeGreaterThanOrEqual(2);
      expect(warnings).toEqual([expect.stringMatching(/network error ETIMEDOUT.*(no time left|attempts)/)]);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("shutdown sends what is pending; spans ended afterwards are dropped", async () => {
    await trace({});
    const tracing = getTracing();
    const late = tracing.startSpan("late");
    tracing.startSpan("early").end();
    await telemetry?.shutdown();
    expect(getTracing().enabled).toBe(false);
    late.end();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.spans.map((span) => span.name)).toEqual(["early"]);
  });
});
