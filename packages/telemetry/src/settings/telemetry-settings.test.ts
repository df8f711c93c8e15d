import { describe, expect, it } from "vitest";
import { TelemetryConfigError, parseKeyValueList, resolveTelemetrySettings } from "./telemetry-settings.js";

describe("telemetry settings from OTEL_* and the telemetry key", () => {
  it("is off without an endpoint, with OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none or enabled: false", () => {
    expect(resolveTelemetrySettings({})).toBeUndefined();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(resolveTelemetrySettings({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
    expect(resolveTelemetrySettings({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toBeUndefined();
    expect(resolveTelemetrySettings(endpoint, { enabled: false })).toBeUndefined();
    expect(resolveTelemetrySettings(endpoint, false)).toBeUndefined();
  });

  it("applies the specification's defaults and endpoint rules", () => {
    expect(resolveTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
      url: "http://collector:4318/v1/traces",
      protocol: "http/protobuf",
      headers: {},
      compression: "none",
      serviceName: "conduit",
      resourceAttributes: {},
      sampler: "parentbased_always_on",
      samplerArg: 1,
      captureContent: false,
      sdk: "conduit",
      attributes: "recommended",
    });
    // The signal-specific variable is the full URL, used as is, and wins over the generic one.
    expect(
      resolveTelemetrySettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://b/custom/path",
      })?.url,
    ).toBe("https://b/custom/path");
    expect(resolveTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318/base" })?.url).toBe("http://a:4318/base/v1/traces");
  });

  it("reads protocol, headers, service name, sampler, ratio and content capture", () => {
    const settings = resolveTelemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=abc%3D%3D, x-tenant = ops",
      OTEL_SERVICE_NAME: "gateway",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    });
    expect(settings).toMatchObject({
      protocol: "http/json",
      headers: { "api-key": "abc==", "x-tenant": "ops" },
      serviceName: "gateway",
      resourceAttributes: { "deployment.environment": "prod" },
      sampler: "parentbased_traceidratio",
      samplerArg: 0.25,
      captureContent: true,
    });
  });

  it("the telemetry key overrides the variables field by field", () => {
    const settings = resolveTelemetrySettings(
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://env:4318", OTEL_SERVICE_NAME: "from-env", OTEL_EXPORTER_OTLP_HEADERS: "a=1" },
      {
        endpoint: "http://config:4318",
        protocol: "http/json",
        headers: { b: "2" },
        sampler: "always_on",
        samplerArg: 0.5,
        captureContent: true,
      },
    );
    expect(settings).toMatchObject({
      url: "http://config:4318/v1/traces",
      protocol: "http/json",
      headers: { b: "2" },
      serviceName: "from-env",
      sampler: "always_on",
      samplerArg: 0.5,
      captureContent: true,
    });
    expect(resolveTelemetrySettings({}, { endpoint: "http://config:4318/v1/traces", serviceName: "svc" })).toMatchObject({
      url: "http://config:4318/v1/traces",
      serviceName: "svc",
    });
  });

  it("warns and falls back on an unknown sampler or a bad ratio; refuses what cannot work", () => {
    const warnings: string[] = [];
    const settings = resolveTelemetrySettings(
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_SAMPLER: "jaeger_remote", OTEL_TRACES_SAMPLER_ARG: "2" },
      {},
      (message) => warnings.push(message),
    );
    expect(settings).toMatchObject({ sampler: "parentbased_always_on", samplerArg: 1 });
    expect(warnings).toHaveLength(2);
    expect(() => resolveTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      TelemetryConfigError,
    );
    expect(() => resolveTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toThrow(/not a URL/);
    expect(() => resolveTelemetrySettings({}, { endpoint: "ftp://c" })).toThrow(/http\(s\)/);
    // Values of the wrong type in a config file: a ConfigurationError naming the key, never a TypeError.
    expect(() => resolveTelemetrySettings({}, { endpoint: 4318 as unknown as string })).toThrow(/telemetry\.endpoint: /);
    expect(() => resolveTelemetrySettings({}, { endpoint: "http://c:4318", headers: "x=1" as never })).toThrow(/telemetry.headers/);
    expect(() => resolveTelemetrySettings({}, { endpoint: "http://c:4318", headers: { a: 1 } as never })).toThrow(
      /telemetry\.headers\.a: /,
    );
  });

  it("picks the engine from CONDUIT_TELEMETRY_SDK or the sdk key (conduit by default); an unknown one is refused", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    expect(resolveTelemetrySettings(endpoint)?.sdk).toBe("conduit");
    expect(resolveTelemetrySettings({ ...endpoint, CONDUIT_TELEMETRY_SDK: "opentelemetry" })?.sdk).toBe("opentelemetry");
    expect(resolveTelemetrySettings({ ...endpoint, CONDUIT_TELEMETRY_SDK: "opentelemetry" }, { sdk: "conduit" })?.sdk).toBe("conduit");
    expect(() => resolveTelemetrySettings({ ...endpoint, CONDUIT_TELEMETRY_SDK: "otel" })).toThrow(TelemetryConfigError);
    expect(() => resolveTelemetrySettings(endpoint, { sdk: "jaeger" as "conduit" })).toThrow(
      'telemetry.sdk: expected "conduit" | "opentelemetry"',
    );
  });

  it("picks the attribute profile from CONDUIT_TELEMETRY_ATTRIBUTES or the attributes key (recommended by default); an unknown one is refused", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    expect(resolveTelemetrySettings(endpoint)?.attributes).toBe("recommended");
    expect(resolveTelemetrySettings({ ...endpoint, CONDUIT_TELEMETRY_ATTRIBUTES: " lean " })?.attributes).toBe("lean");
    expect(resolveTelemetrySettings({ ...endpoint, CONDUIT_TELEMETRY_ATTRIBUTES: "lean" }, { attributes: "recommended" })?.attributes).toBe(
      "recommended",
    );
    expect(resolveTelemetrySettings(endpoint, { attributes: "lean" })?.attributes).toBe("lean");
    const refused = (() => {
      try {
        resolveTelemetrySettings({ ...endpoint, CONDUIT_TELEMETRY_ATTRIBUTES: "minimal" });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(TelemetryConfigError);
    expect(refused).toMatchObject({
      message: 'Telemetry attribute profile "minimal" is not supported: use recommended (default) or lean',
      issues: [{ path: "telemetry.attributes" }],
    });
    expect(() => resolveTelemetrySettings(endpoint, { attributes: "all" as "lean" })).toThrow(
      'telemetry.attributes: expected "recommended" | "lean"',
    );
  });

  it("reads compression from OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION or the compression key (none by default); an unknown one is refused", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    expect(resolveTelemetrySettings({ ...endpoint, OTEL_EXPORTER_OTLP_COMPRESSION: "GZIP" })?.compression).toBe("gzip");
    // The signal-specific variable wins over the generic one, the key over both.
    const both = { ...endpoint, OTEL_EXPORTER_OTLP_COMPRESSION: "gzip", OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "none" };
    expect(resolveTelemetrySettings(both)?.compression).toBe("none");
    expect(resolveTelemetrySettings(both, { compression: "gzip" })?.compression).toBe("gzip");
    expect(() => resolveTelemetrySettings({ ...endpoint, OTEL_EXPORTER_OTLP_COMPRESSION: "zstd" })).toThrow(/compression "zstd"/);
    expect(() => resolveTelemetrySettings(endpoint, { compression: "br" as "gzip" })).toThrow(
      'telemetry.compression: expected "gzip" | "none"',
    );
    // A config file may hold any JSON value there: still a ConfigurationError naming the key, never a TypeError.
    expect(() => resolveTelemetrySettings(endpoint, { compression: true as unknown as "gzip" })).toThrow(/telemetry\.compression: /);
  });

  it("parses the OTEL_*_HEADERS list leniently", () => {
    expect(parseKeyValueList("a=1,,=x,b,c=%E2%9C%93,d=%ZZ")).toEqual({ a: "1", c: "✓", d: "%ZZ" });
  });
});

describe("the config error", () => {
  it("is the workspace's ConfigurationError naming the key at fault", async () => {
    const { ConfigurationError } = await import("@conduit-ai/server-core");
    let caught: unknown;
    try {
      resolveTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    expect((caught as InstanceType<typeof ConfigurationError>).issues).toEqual([
      { path: "telemetry.endpoint", message: expect.stringContaining("not a URL") },
    ]);
  });
});
