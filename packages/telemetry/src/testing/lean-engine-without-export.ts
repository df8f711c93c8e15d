/**
 * The `conduit` engine installed with everything but the export, for `bench:tracing --parts`: it
 * shows which share of tracing's cost is recording spans, which is encoding them, and (by
 * difference with the real engine) which is sending them to a collector.
 */
import { setTracing } from "@conduit-ai/server-core";
import type { FinishedSpan } from "../engines/conduit/finished-span.js";
import { LeanTracing, type SpanSink } from "../engines/conduit/lean-tracing.js";
import { protobufEncoding } from "../engines/conduit/otlp-protobuf.js";
import { createResource } from "../engines/conduit/resource.js";
import { createSampler } from "../engines/conduit/sampler.js";
import { spanLimitsFrom } from "../engines/conduit/span-limits.js";
import { resolveTelemetrySettings } from "../settings/telemetry-settings.js";

/** Encodes every ended span and builds an export request per 512 (the default batch), then drops it. */
class EncodeOnlySink implements SpanSink {
  readonly #encoding;
  #pending: number[] = [];
  requests = 0;

  constructor() {
    const environment = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SERVICE_NAME: "bench" };
    const settings = resolveTelemetrySettings(environment);
    if (settings === undefined) throw new Error("telemetry settings did not resolve");
    this.#encoding = protobufEncoding(createResource(settings, undefined), spanLimitsFrom(environment));
  }

  add(span: FinishedSpan): void {
    this.#pending.push(this.#encoding.encodeSpan(span));
    if (this.#pending.length < 512) return;
    this.#encoding.encodeRequest(this.#pending);
    this.#pending = [];
    this.requests++;
  }
}

/**
 * Installs the `conduit` engine, every span sampled, whose ended spans are only recorded
 * (`"record"`: the sink ignores them) or also encoded into OTLP protobuf requests that are never
 * sent (`"encode"`). Returns the sink, so a caller can check it saw spans.
 *
 * @example
 * installLeanEngineWithoutExport("encode");
 */
export function installLeanEngineWithoutExport(part: "record" | "encode"): { readonly requests: number } {
  const sink = part === "encode" ? new EncodeOnlySink() : { add() {}, requests: 0 };
  setTracing(new LeanTracing(sink, createSampler("always_on", 1), false));
  return sink;
}
