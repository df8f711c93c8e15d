import { randomBytes } from "node:crypto";
import { ROOT_CONTEXT } from "@opentelemetry/api";
import { SamplingDecision, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it } from "vitest";
import { traceIdRatio } from "./sampler.js";
import { randomId } from "./trace-context.js";

describe("trace id ratio sampling", () => {
  it("keeps exactly the traces OpenTelemetry's TraceIdRatioBasedSampler keeps, at every ratio", () => {
    const traceIds = [
      ...Array.from({ length: 2000 }, () => randomBytes(16)),
      Buffer.alloc(16, 0xff),
      Buffer.from("00000000000000000000000000000001", "hex"),
      Buffer.from("80000000000000000000000000000000", "hex"),
    ];
    for (const ratio of [0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.999, 1]) {
      const lean = traceIdRatio(ratio);
      const otel = new TraceIdRatioBasedSampler(ratio);
      const agreed = traceIds.filter(
        (traceId) =>
          lean(traceId) === (otel.shouldSample(ROOT_CONTEXT, traceId.toString("hex")).decision === SamplingDecision.RECORD_AND_SAMPLED),
      );
      expect(agreed.length, `ratio ${ratio}`).toBe(traceIds.length);
    }
    // And the ratio is what it says (roughly, over random ids).
    const kept = traceIds.filter(traceIdRatio(0.25)).length / traceIds.length;
    expect(kept).toBeGreaterThan(0.2);
    expect(kept).toBeLessThan(0.3);
  });
});

describe("random ids", () => {
  it("are distinct across pool refills and stay as handed out", () => {
    const ids = Array.from({ length: 1000 }, () => randomId(16));
    const copies = ids.map((id) => id.toString("hex"));
    expect(new Set(copies).size).toBe(1000);
    // Later ids (several refills on) do not overwrite earlier ones.
    for (let index = 0; index < 1000; index++) randomId(8);
    expect(ids.map((id) => id.toString("hex"))).toEqual(copies);
  });
});
