import type { TelemetrySamplerName } from "../../settings/telemetry-settings.js";
import type { SpanContext } from "./trace-context.js";

/** Whether a new span is recorded, given its parent (if any) and its trace id. */
export type Sampler = (parent: SpanContext | undefined, traceId: Buffer) => boolean;

/**
 * OpenTelemetry JS's TraceIdRatioBasedSampler rule, so both engines keep the same traces: the four
 * big-endian 32-bit words of the trace id XORed together, below `floor(ratio × 0xffffffff)`
 * (every trace at ratio 1).
 */
export function traceIdRatio(ratio: number): (traceId: Buffer) => boolean {
  const upperBound = ratio >= 1 ? 0x100000000 : Math.floor(Math.max(ratio, 0) * 0xffffffff);
  return (traceId) =>
    (traceId.readUInt32BE(0) ^ traceId.readUInt32BE(4) ^ traceId.readUInt32BE(8) ^ traceId.readUInt32BE(12)) >>> 0 < upperBound;
}

/** The sampler `OTEL_TRACES_SAMPLER`/`_ARG` name; the `parentbased_*` ones follow the parent's decision when there is one. */
export function createSampler(name: TelemetrySamplerName, ratio: number): Sampler {
  const byRatio = traceIdRatio(ratio);
  switch (name) {
    case "always_on":
      return () => true;
    case "always_off":
      return () => false;
    case "traceidratio":
      return (_parent, traceId) => byRatio(traceId);
    case "parentbased_always_off":
      return (parent) => parent?.sampled ?? false;
    case "parentbased_traceidratio":
      return (parent, traceId) => parent?.sampled ?? byRatio(traceId);
    default:
      return (parent) => parent?.sampled ?? true;
  }
}
