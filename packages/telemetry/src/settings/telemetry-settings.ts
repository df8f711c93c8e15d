/**
 * Which traces to send where: from the standard `OTEL_*` variables, as the OpenTelemetry
 * specification defines them, or from a `telemetry` config key with the same settings. This file
 * imports nothing from OpenTelemetry: deciding that tracing is off must load none of it.
 */
import { ConfigurationError } from "@conduit-ai/server-core";
import { TELEMETRY_ATTRIBUTE_PROFILES, type TelemetryAttributeProfile } from "./attribute-profiles.js";
import { TELEMETRY_SAMPLERS, parseTelemetryConfig } from "./telemetry-config-schema.js";

export type TelemetryProtocol = "http/protobuf" | "http/json";

/** How an export request's body is sent: as is (`none`, the specification's default) or `gzip`. */
export type TelemetryCompression = "gzip" | "none";

/**
 * The tracing engine: `conduit` (default), Conduit's lean built-in one; `opentelemetry`, the
 * OpenTelemetry SDK registered process-wide (AsyncLocalStorage context), for processes whose other
 * OpenTelemetry instrumentation should join Conduit's traces.
 */
export type TelemetrySdk = "conduit" | "opentelemetry";

export type TelemetrySamplerName = (typeof TELEMETRY_SAMPLERS)[number];

/** The `telemetry` config key: every field optional, each overriding its `OTEL_*` variable. */
export interface TelemetryConfig {
  /** False turns tracing off whatever the environment says. */
  enabled?: boolean;
  /** OTLP/HTTP base URL as `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` is appended); a URL already ending in `/v1/traces` is used as is. */
  endpoint?: string;
  /** `http/protobuf` (default) or `http/json`. */
  protocol?: TelemetryProtocol;
  /** Headers sent with every export (an API key of the collector). Never recorded anywhere. */
  headers?: Record<string, string>;
  /** `gzip` or `none` (default), as `OTEL_EXPORTER_OTLP_COMPRESSION`: ≈ 5× fewer bytes to a collector across a network. */
  compression?: TelemetryCompression;
  /** `service.name` of the resource; default `conduit`. */
  serviceName?: string;
  /** Default `parentbased_always_on`. */
  sampler?: TelemetrySamplerName;
  /** The ratio of the `*traceidratio` samplers, 0…1 (default 1). */
  samplerArg?: number;
  /** Record prompts and answers on GenAI spans (default false). */
  captureContent?: boolean;
  /** The tracing engine, as `CONDUIT_TELEMETRY_SDK`: `conduit` (default) or `opentelemetry`. */
  sdk?: TelemetrySdk;
  /**
   * Which span attributes are exported, as `CONDUIT_TELEMETRY_ATTRIBUTES`: `recommended` (default,
   * every attribute Conduit records) or `lean` (those that identify and time a call, `LEAN_ATTRIBUTES`).
   */
  attributes?: TelemetryAttributeProfile;
}

/** The resolved settings of a tracer that is on. */
export interface TelemetrySettings {
  /** The full traces URL. */
  url: string;
  protocol: TelemetryProtocol;
  headers: Record<string, string>;
  compression: TelemetryCompression;
  serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`, parsed. */
  resourceAttributes: Record<string, string>;
  sampler: TelemetrySamplerName;
  samplerArg: number;
  captureContent: boolean;
  sdk: TelemetrySdk;
  attributes: TelemetryAttributeProfile;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The telemetry settings are invalid (an endpoint that is no URL, an unsupported protocol or
 * sdk): a `ConfigurationError` whose `issues` name the key (`telemetry.endpoint`).
 */
export class TelemetryConfigError extends ConfigurationError {
  /** `path`: the key at fault (default `telemetry`). */
  constructor(message: string, path = "telemetry") {
    super(message, { details: { issues: [{ path, message }] } });
    this.name = "TelemetryConfigError";
  }
}

const present = (value: string | undefined): string | undefined => (value === undefined || value.trim() === "" ? undefined : value.trim());

/** `key=value,key2=value2`, values percent-encoded: the W3C Baggage-like list `OTEL_*_HEADERS` use. */
export function parseKeyValueList(value: string | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const entry of (value ?? "").split(",")) {
    const separator = entry.indexOf("=");
    if (separator <= 0) continue;
    const key = entry.slice(0, separator).trim();
    const raw = entry.slice(separator + 1).trim();
    try {
      result[key] = decodeURIComponent(raw);
    } catch {
      result[key] = raw;
    }
  }
  return result;
}

function tracesUrl(generic: string | undefined, signal: string | undefined): string | undefined {
  if (signal !== undefined) return signal;
  if (generic === undefined) return undefined;
  if (/\/v1\/traces\/?$/.test(generic)) return generic;
  return `${generic.replace(/\/+$/, "")}/v1/traces`;
}

function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TelemetryConfigError(`The OTLP traces endpoint ${JSON.stringify(url)} is not a URL`, "telemetry.endpoint");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TelemetryConfigError(`The OTLP traces endpoint must be http(s); got ${parsed.protocol}`, "telemetry.endpoint");
  }
  return parsed.href;
}

function checkedProtocol(protocol: string): TelemetryProtocol {
  if (protocol === "http/protobuf" || protocol === "http/json") return protocol;
  throw new TelemetryConfigError(
    `OTLP protocol ${JSON.stringify(protocol)} is not supported: use http/protobuf (default) or http/json`,
    "telemetry.protocol",
  );
}

/** `OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION`: anything but gzip/none is refused with its name. */
function checkedCompression(compression: string): TelemetryCompression {
  const lower = typeof compression === "string" ? compression.toLowerCase() : compression;
  if (lower === "gzip" || lower === "none") return lower;
  throw new TelemetryConfigError(
    `OTLP compression ${JSON.stringify(compression)} is not supported: use gzip or none (default)`,
    "telemetry.compression",
  );
}

/** Every engine, the default first. */
export const TELEMETRY_SDKS: readonly TelemetrySdk[] = ["conduit", "opentelemetry"];

function checkedSdk(sdk: string): TelemetrySdk {
  if ((TELEMETRY_SDKS as readonly string[]).includes(sdk)) return sdk as TelemetrySdk;
  throw new TelemetryConfigError(
    `Telemetry sdk ${JSON.stringify(sdk)} is not supported: use conduit (default) or opentelemetry`,
    "telemetry.sdk",
  );
}

function checkedAttributes(profile: string): TelemetryAttributeProfile {
  if ((TELEMETRY_ATTRIBUTE_PROFILES as readonly string[]).includes(profile)) return profile as TelemetryAttributeProfile;
  throw new TelemetryConfigError(
    `Telemetry attribute profile ${JSON.stringify(profile)} is not supported: use recommended (default) or lean`,
    "telemetry.attributes",
  );
}

/**
 * The settings of a tracer, or `undefined` when tracing is off: no endpoint given,
 * `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none` or `telemetry.enabled: false`. An unknown
 * sampler or a bad ratio in a variable falls back to the default with a warning, as the
 * specification says; a variable's endpoint, protocol, compression, sdk or attribute profile that cannot work throws
 * `TelemetryConfigError`, a `telemetry` key that `parseTelemetryConfig` refuses its `ConfigurationError`.
 *
 * @example
 * resolveTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" });
 * // { url: "http://127.0.0.1:4318/v1/traces", protocol: "http/protobuf", serviceName: "conduit", ... }
 */
export function resolveTelemetrySettings(
  environment: Environment,
  input: TelemetryConfig | false = {},
  onWarning: (message: string) => void = () => {},
): TelemetrySettings | undefined {
  // The config key is checked whole first (a config file may hold any JSON there); the variables below.
  const config = parseTelemetryConfig(input);
  if (config === false || config.enabled === false) return undefined;
  if (present(environment.OTEL_SDK_DISABLED)?.toLowerCase() === "true") return undefined;
  if (present(environment.OTEL_TRACES_EXPORTER)?.toLowerCase() === "none") return undefined;
  const url =
    config.endpoint !== undefined
      ? tracesUrl(present(config.endpoint), undefined)
      : tracesUrl(present(environment.OTEL_EXPORTER_OTLP_ENDPOINT), present(environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT));
  if (url === undefined) return undefined;
  const protocol = checkedProtocol(
    config.protocol ??
      present(environment.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ??
      present(environment.OTEL_EXPORTER_OTLP_PROTOCOL) ??
      "http/protobuf",
  );
  const headers = config.headers ?? {
    ...parseKeyValueList(environment.OTEL_EXPORTER_OTLP_HEADERS),
    ...parseKeyValueList(environment.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
  };
  const compression = checkedCompression(
    config.compression ??
      present(environment.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION) ??
      present(environment.OTEL_EXPORTER_OTLP_COMPRESSION) ??
      "none",
  );
  const resourceAttributes = parseKeyValueList(environment.OTEL_RESOURCE_ATTRIBUTES);
  const serviceName = config.serviceName ?? present(environment.OTEL_SERVICE_NAME) ?? resourceAttributes["service.name"] ?? "conduit";
  let sampler = (config.sampler ??
    present(environment.OTEL_TRACES_SAMPLER)?.toLowerCase() ??
    "parentbased_always_on") as TelemetrySamplerName;
  if (!(TELEMETRY_SAMPLERS as readonly string[]).includes(sampler)) {
    onWarning(`telemetry: unknown sampler ${JSON.stringify(sampler)}, using parentbased_always_on`);
    sampler = "parentbased_always_on";
  }
  const rawArg = config.samplerArg ?? present(environment.OTEL_TRACES_SAMPLER_ARG);
  let samplerArg = rawArg === undefined ? 1 : Number(rawArg);
  if (!(samplerArg >= 0 && samplerArg <= 1)) {
    onWarning(`telemetry: sampler ratio ${JSON.stringify(rawArg)} is not within 0…1, using 1`);
    samplerArg = 1;
  }
  const captureContent =
    config.captureContent ?? present(environment.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)?.toLowerCase() === "true";
  const sdk = checkedSdk(config.sdk ?? present(environment.CONDUIT_TELEMETRY_SDK) ?? "conduit");
  const attributes = checkedAttributes(config.attributes ?? present(environment.CONDUIT_TELEMETRY_ATTRIBUTES) ?? "recommended");
  return {
    url: checkedUrl(url),
    protocol,
    headers,
    compression,
    serviceName,
    resourceAttributes,
    sampler,
    samplerArg,
    captureContent,
    sdk,
    attributes,
  };
}
