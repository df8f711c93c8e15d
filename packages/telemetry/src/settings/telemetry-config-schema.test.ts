import { ConfigurationError } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { parseTelemetryConfig } from "./telemetry-config-schema.js";

/** The issues `parseTelemetryConfig` raises for `input` (a failure if it accepts it). */
function issuesOf(input: unknown): Array<{ path: string; message: string }> {
  try {
    parseTelemetryConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).issues;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe("parseTelemetryConfig", () => {
  it("accepts false, an empty object and every setting", () => {
    expect(parseTelemetryConfig(false)).toBe(false);
    expect(parseTelemetryConfig({})).toEqual({});
    const full = {
      enabled: true,
      endpoint: "https://collector.example:4318",
      protocol: "http/json",
      headers: { "x-api-key": "k" },
      compression: "GZIP",
      serviceName: "gateway",
      sampler: "parentbased_traceidratio",
      samplerArg: 0.25,
      captureContent: false,
      sdk: "opentelemetry",
      attributes: "lean",
    };
    expect(parseTelemetryConfig(full)).toEqual({ ...full, compression: "gzip" });
  });

  it("names an unknown key, a value outside a closed set and a wrong type by key path", () => {
    expect(issuesOf({ sdk: "jaeger" })).toEqual([{ path: "telemetry.sdk", message: 'expected "conduit" | "opentelemetry"' }]);
    expect(issuesOf({ attributes: "minimal" })).toEqual([{ path: "telemetry.attributes", message: 'expected "recommended" | "lean"' }]);
    expect(issuesOf({ sdkk: "conduit" })).toEqual([{ path: "telemetry.sdkk", message: "unknown key" }]);
    expect(issuesOf({ protocol: "grpc" })).toEqual([{ path: "telemetry.protocol", message: 'expected "http/protobuf" | "http/json"' }]);
    expect(issuesOf({ endpoint: "ftp://collector" })).toEqual([{ path: "telemetry.endpoint", message: "expected an http(s) URL" }]);
    expect(issuesOf({ sampler: "jaeger_remote" })[0]?.path).toBe("telemetry.sampler");
    expect(issuesOf({ samplerArg: 2 })[0]?.path).toBe("telemetry.samplerArg");
    expect(issuesOf({ headers: { a: 1 } })[0]?.path).toBe("telemetry.headers.a");
    expect(issuesOf({ enabled: "yes" })[0]).toMatchObject({
      path: "telemetry.enabled",
      message: expect.stringContaining("expected boolean"),
    });
  });

  it("refuses a section that is no object, and reports every problem at once", () => {
    expect(issuesOf("on")[0]?.path).toBe("telemetry");
    expect(issuesOf([])[0]?.path).toBe("telemetry");
    expect(issuesOf({ sdk: "x", extra: 1 }).map((issue) => issue.path)).toEqual(["telemetry.sdk", "telemetry.extra"]);
  });

  it("throws the one config-error type, its message naming the key", () => {
    expect(() => parseTelemetryConfig({ sdk: "jaeger" })).toThrow('telemetry.sdk: expected "conduit" | "opentelemetry"');
  });
});
