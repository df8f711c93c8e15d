import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@conduit-ai/fakes";
import { getTracing } from "@conduit-ai/server-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type TelemetryHandle, startTelemetry } from "../../index.js";
import { TELEMETRY_SDKS } from "../../settings/telemetry-settings.js";
import { spanLimitsFrom } from "./span-limits.js";

let receiver: OtlpReceiver;
let telemetry: TelemetryHandle | undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});
afterAll(() => receiver.close());

describe("span limits (OTEL_*_LIMIT)", () => {
  it("defaults to the specification's: 128 attributes, 128 events, 128 attributes an event, no length limit", () => {
    expect(spanLimitsFrom({})).toEqual({
      attributeCount: 128,
      attributeValueLength: Number.POSITIVE_INFINITY,
      eventCount: 128,
      eventAttributeCount: 128,
    });
    expect(
      spanLimitsFrom({ OTEL_ATTRIBUTE_COUNT_LIMIT: "10", OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: "20", OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "x" }),
    ).toMatchObject({
      attributeCount: 20,
      eventAttributeCount: 10,
      attributeValueLength: Number.POSITIVE_INFINITY,
    });
  });

  const cases = TELEMETRY_SDKS.flatMap((sdk) => ["http/protobuf", "http/json"].map((protocol) => [sdk, protocol]));
  describe.each(cases)("%s engine over %s", (sdk, protocol) => {
    it("keeps the first attributes and the last events, cuts long strings, and counts what it dropped", async () => {
      receiver.clear();
      telemetry = await startTelemetry({
        environment: {
          CONDUIT_TELEMETRY_SDK: sdk as string,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: "3",
          OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "5",
          OTEL_SPAN_EVENT_COUNT_LIMIT: "2",
          OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT: "1",
        },
        exportImmediately: true,
      });
      const span = getTracing().startSpan("limited", { attributes: { a: "abcdefgh", b: 1, c: ["long-one", "ok"] } });
      span.setAttributes({ d: true, e: "more" });
      for (const name of ["first", "second", "third"]) span.addEvent(name, { x: "123456789", y: 2 });
      span.end();
      const [received] = (await receiver.waitFor((spans) => spans.length === 1)) as [ReceivedSpan];
      expect(received.attributes).toEqual({ a: "abcde", b: 1, c: ["long-", "ok"] });
      expect(received.droppedAttributesCount).toBe(2);
      expect(received.events.map((event) => event.name)).toEqual(["second", "third"]);
      expect(received.events[0]).toMatchObject({ attributes: { x: "12345" }, droppedAttributesCount: 1 });
      expect(received.droppedEventsCount).toBe(1);
    });
  });

  it("leaves a span within the limits as it is (no dropped counts)", async () => {
    receiver.clear();
    telemetry = await startTelemetry({ environment: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, exportImmediately: true });
    const span = getTracing().startSpan("plain", { attributes: { text: "x".repeat(10_000) } });
    span.addEvent("one");
    span.end();
    const [received] = (await receiver.waitFor((spans) => spans.length === 1)) as [ReceivedSpan];
    expect(String(received.attributes.text)).toHaveLength(10_000);
    expect([received.droppedAttributesCount, received.droppedEventsCount]).toEqual([0, 0]);
  });
});
