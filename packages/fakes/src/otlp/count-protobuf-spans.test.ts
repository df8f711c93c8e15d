import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { countProtobufSpans } from "./count-protobuf-spans.js";

type Encoder = { fromObject(value: object): unknown; encode(message: unknown): { finish(): Uint8Array } };
const root = createRequire(import.meta.url)("@opentelemetry/otlp-transformer/build/src/generated/root.js") as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Encoder } } } } };
};
const { ExportTraceServiceRequest } = root.opentelemetry.proto.collector.trace.v1;

const span = (name: string) => ({
  traceId: Buffer.alloc(16, 1),
  spanId: Buffer.alloc(8, 2),
  name,
  kind: 2,
  startTimeUnixNano: "1700000000000000000",
  endTimeUnixNano: "1700000000000500000",
  attributes: [
    { key: "http.route", value: { stringValue: "/api/items" } },
    { key: "n", value: { intValue: 7 } },
  ],
  events: [{ timeUnixNano: "1700000000000100000", name: "retry" }],
  status: { code: 2, message: "boom" },
});

describe("countProtobufSpans", () => {
  it("counts the spans of every scope of every resource, as OpenTelemetry's encoder wrote them", () => {
    const request = ExportTraceServiceRequest.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "conduit" } }] },
          scopeSpans: [
            { scope: { name: "a" }, spans: [span("one"), span("two")] },
            { scope: { name: "b" }, spans: [span("three")] },
          ],
        },
        { scopeSpans: [{ spans: [span("four"), span("five"), span("six")] }] },
      ],
    });
    expect(countProtobufSpans(ExportTraceServiceRequest.encode(request).finish())).toBe(6);
    expect(countProtobufSpans(new Uint8Array())).toBe(0);
  });

  it("refuses a truncated or malformed export instead of miscounting it", () => {
    const bytes = ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [span("x")] }] }] }),
    ).finish();
    expect(() => countProtobufSpans(bytes.subarray(0, bytes.length - 3))).toThrow(/overruns/);
    expect(() => countProtobufSpans(Uint8Array.of(0x0b))).toThrow(/wire type/);
  });
});
