import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@conduit-ai/fakes";
import { type TraceSpan, getTracing } from "@conduit-ai/server-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type TelemetryHandle, startTelemetry } from "../../index.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const [INTERNAL, SERVER, CLIENT] = [1, 2, 3];

let receiver: OtlpReceiver;
let telemetry: TelemetryHandle | undefined;

async function trace(environment: Record<string, string> = {}, serviceVersion?: string): Promise<void> {
  await telemetry?.shutdown();
  receiver.clear();
  telemetry = await startTelemetry({
    environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...environment },
    serviceVersion,
    exportImmediately: true,
  });
}

const byName = (name: string) => receiver.spans.find((span) => span.name === name) as ReceivedSpan;
const traceparentOf = (span: TraceSpan) => span.traceHeaders().traceparent?.split("-") ?? [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});
afterAll(() => receiver.close());

describe.each(["http/protobuf", "http/json"])("the lean engine over %s, decoded by OpenTelemetry's own definitions", (protocol) => {
  it("a span tree through explicit parents, every attribute type, events, error status, resource and times", async () => {
    await trace({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test" }, "9.9.9");
    expect(telemetry?.settings.sdk).toBe("conduit");
    const tracing = getTracing();
    const before = BigInt(Date.now()) * 1_000_000n;
    const server = tracing.startRequestSpan(
      "POST /chat",
      { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: "vendor=x,other=y" },
      { "http.request.method": "POST", skipped: undefined },
    );
    const internal = tracing.startSpan("workflow plan", { parent: server });
    const client = tracing.startSpan("chat gpt-4o", {
      kind: "client",
      parent: internal,
      attributes: {
        text: "héllo ✓",
        long: "x".repeat(300),
        medium: "y".repeat(200),
        count: 42,
        negative: -3,
        ratio: 0.25,
        big: 2 ** 60,
        flag: false,
        names: ["stop", "length"],
        numbers: [1, 2.5],
      },
    });
    client.setAttributes({ count: 43, later: "yes", dropped: undefined });
    client.addEvent("retry", { attempt: 2 });
    client.addEvent("plain");
    client.fail(Object.assign(new Error("upstream said no"), { code: "UPSTREAM_REFUSED" }));
    client.end();
    internal.fail("timeout");
    internal.end();
    server.end();
    // After end, nothing changes and nothing is sent twice.
    server.setAttributes({ late: 1 });
    server.end();
    await telemetry?.forceFlush();
    expect(receiver.spans).toHaveLength(3);
    expect(receiver.exports[0]?.contentType).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");

    const [serverSpan, internalSpan, clientSpan] = [byName("POST /chat"), byName("workflow plan"), byName("chat gpt-4o")];
    expect(serverSpan).toMatchObject({ traceId: TRACE, parentSpanId: PARENT, kind: SERVER, status: { code: 0 } });
    expect(serverSpan.attributes).toEqual({ "http.request.method": "POST" });
    expect(internalSpan).toMatchObject({ traceId: TRACE, parentSpanId: serverSpan.spanId, kind: INTERNAL, status: { code: 2 } });
    expect(internalSpan.attributes).toEqual({ "error.type": "timeout" });
    expect(internalSpan.events).toEqual([]);
    expect(clientSpan).toMatchObject({ traceId: TRACE, parentSpanId: internalSpan.spanId, kind: CLIENT });
    expect(clientSpan.status).toEqual({ code: 2, message: "upstream said no" });
    expect(clientSpan.attributes).toEqual({
      text: "héllo ✓",
      long: "x".repeat(300),
      medium: "y".repeat(200),
      count: 43,
      negative: -3,
      ratio: 0.25,
      big: 2 ** 60,
      flag: false,
      names: ["stop", "length"],
      numbers: [1, 2.5],
      later: "yes",
      "error.type": "UPSTREAM_REFUSED",
    });
    expect(clientSpan.events).toEqual([
      { name: "retry", attributes: { attempt: 2 } },
      { name: "plain", attributes: {} },
      { name: "exception", attributes: { "exception.type": "UPSTREAM_REFUSED", "exception.message": "upstream said no" } },
    ]);
    expect(clientSpan.resource).toMatchObject({
      "service.name": "conduit",
      "service.version": "9.9.9",
      "deployment.environment": "test",
      "telemetry.sdk.name": "@conduit-ai/telemetry",
      "telemetry.sdk.language": "nodejs",
      "process.pid": process.pid,
    });
    expect(typeof clientSpan.resource["host.name"]).toBe("string");
    for (const span of receiver.spans) {
      expect(BigInt(span.startTimeUnixNano)).toBeGreaterThanOrEqual(before - 1_000_000n);
      expect(BigInt(span.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(span.startTimeUnixNano));
      expect(BigInt(span.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(Date.now() + 1) * 1_000_000n);
    }
    expect(BigInt(serverSpan.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(clientSpan.endTimeUnixNano));
    // Out: the client span as parent, the caller's tracestate as is.
    expect(client.traceHeaders()).toEqual({ traceparent: `00-${TRACE}-${clientSpan.spanId}-01`, tracestate: "vendor=x,other=y" });
  });
});

describe("trace context and sampling", () => {
  it("a malformed, all-zero or ff-version traceparent starts a new trace; a future version is read", async () => {
    await trace();
    const tracing = getTracing();
    const zeroTrace = "0".repeat(32);
    const malformed = [
      "garbage",
      `00-${TRACE.toUpperCase()}-${PARENT}-01`,
      `00-${zeroTrace}-${PARENT}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `ff-${TRACE}-${PARENT}-01`,
      `00-${TRACE}-${PARENT}-01-extra`,
    ];
    for (const traceparent of malformed) {
      const [version, traceId, spanId, flags] = traceparentOf(tracing.startRequestSpan("GET", { traceparent }));
      expect({ version, flags }).toEqual({ version: "00", flags: "01" });
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(traceId).not.toBe(TRACE);
      expect(traceId).not.toBe(zeroTrace);
      expect(spanId).toMatch(/^(?!0{16})[0-9a-f]{16}$/);
    }
    const future = tracing.startRequestSpan("GET", { traceparent: `01-${TRACE}-${PARENT}-01-more` });
    expect(traceparentOf(future)[1]).toBe(TRACE);
    // Without a tracestate none is sent.
    expect(Object.keys(future.traceHeaders())).toEqual(["traceparent"]);
  });

  it("a non-sampled parent: no span recorded, yet its trace and flag 00 propagate to children and out", async () => {
    await trace();
    const tracing = getTracing();
    const server = tracing.startRequestSpan("GET /", { traceparent: `00-${TRACE}-${PARENT}-00`, tracestate: "a=1" });
    const [, traceId, spanId, flags] = traceparentOf(server);
    expect({ traceId, flags }).toEqual({ traceId: TRACE, flags: "00" });
    expect(spanId).not.toBe(PARENT);
    const child = tracing.startSpan("chat", { kind: "client", parent: server });
    expect(child.traceHeaders()).toMatchObject({ traceparent: expect.stringMatching(`^00-${TRACE}-[0-9a-f]{16}-00$`), tracestate: "a=1" });
    child.setAttributes({ a: 1 });
    child.fail(new Error("x"));
    child.end();
    server.end();
    await telemetry?.forceFlush();
    expect(receiver.spans).toEqual([]);

    // always_on ignores the parent's decision: the child is recorded under the unsampled span.
    await trace({ OTEL_TRACES_SAMPLER: "always_on" });
    const remote = getTracing().startRequestSpan("GET /", { traceparent: `00-${TRACE}-${PARENT}-00` });
    remote.end();
    await telemetry?.forceFlush();
    expect(byName("GET /")).toMatchObject({ traceId: TRACE, parentSpanId: PARENT });
  });

  it.each([
    ["always_off", undefined, false, false],
    ["always_on", undefined, true, true],
    ["parentbased_always_on", undefined, true, false],
    ["parentbased_always_off", undefined, false, false],
    ["parentbased_traceidratio", "1", true, false],
  ])("%s: a root is recorded: %s…", async (sampler, ratio, root, unsampledParentChild) => {
    await trace({ OTEL_TRACES_SAMPLER: sampler, ...(ratio ? { OTEL_TRACES_SAMPLER_ARG: ratio } : {}) });
    const tracing = getTracing();
    tracing.startSpan("root").end();
    tracing.startRequestSpan("child of unsampled", { traceparent: `00-${TRACE}-${PARENT}-00` }).end();
    tracing.startRequestSpan("child of sampled", { traceparent: `00-${TRACE}-${PARENT}-01` }).end();
    await telemetry?.forceFlush();
    const names = receiver.spans.map((span) => span.name);
    expect(names.includes("root")).toBe(root);
    expect(names.includes("child of unsampled")).toBe(unsampledParentChild);
    expect(names.includes("child of sampled")).toBe(sampler !== "always_off");
  });

  it("runInSpan sets the active span for synchronous work only; startSpan without a parent takes it; bindIterable pulls each item under it", async () => {
    await trace();
    const tracing = getTracing();
    const outer = tracing.startSpan("outer");
    expect(tracing.activeSpan()).toBeUndefined();
    const inner = tracing.runInSpan(outer, () => {
      expect(tracing.activeSpan()).toBe(outer);
      return tracing.startSpan("inner");
    });
    expect(tracing.activeSpan()).toBeUndefined();
    expect(() =>
      tracing.runInSpan(outer, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(tracing.activeSpan()).toBeUndefined();
    const seen: Array<TraceSpan | undefined> = [];
    async function* items() {
      seen.push(tracing.activeSpan());
      yield 1;
      seen.push(tracing.activeSpan());
    }
    for await (const _ of tracing.bindIterable(inner, items())) seen.push(tracing.activeSpan());
    expect(seen).toEqual([inner, undefined, inner]);
    inner.end();
    outer.end();
    await telemetry?.forceFlush();
    expect(byName("inner").parentSpanId).toBe(byName("outer").spanId);
    expect(byName("inner").traceId).toBe(byName("outer").traceId);
  });
});
