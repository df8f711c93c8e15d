import { getTracing, setTracing } from "@conduit-ai/server-core";
import { afterEach, describe, expect, it } from "vitest";
import { installLeanEngineWithoutExport } from "./lean-engine-without-export.js";

afterEach(() => setTracing(undefined));

describe("installLeanEngineWithoutExport (bench:tracing --parts)", () => {
  it("records sampled spans without encoding them", () => {
    const sink = installLeanEngineWithoutExport("record");
    const span = getTracing().startSpan("work");
    expect(span.traceHeaders?.().traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    for (let index = 0; index < 600; index++) getTracing().startSpan("work").end();
    expect(sink.requests).toBe(0);
  });

  it("encodes ended spans into one export request per 512, never sent", () => {
    const sink = installLeanEngineWithoutExport("encode");
    for (let index = 0; index < 1100; index++) getTracing().startSpan("work", { attributes: { index } }).end();
    expect(sink.requests).toBe(2);
  });
});
