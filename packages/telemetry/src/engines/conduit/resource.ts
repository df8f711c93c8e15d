import { hostname } from "node:os";
import type { TelemetrySettings } from "../../settings/telemetry-settings.js";
import { VERSION } from "../../version.js";
import type { FinishedSpan } from "./finished-span.js";

export const SCOPE_NAME = "@conduit-ai/telemetry";

/** Who sends the spans: the resource attributes and the instrumentation scope, written once per export. */
export interface Resource {
  readonly attributes: Readonly<Record<string, string | number>>;
  readonly scopeName: string;
  readonly scopeVersion: string;
}

/** One OTLP encoding: a span encoded as it ends, and a request from a batch of encoded spans. */
export interface OtlpEncoding<Encoded> {
  readonly contentType: string;
  encodeSpan(span: FinishedSpan): Encoded;
  encodeRequest(spans: readonly Encoded[]): Uint8Array | string;
}

/**
 * The resource OpenTelemetry's default one would describe (service, SDK, process, host), plus
 * `OTEL_RESOURCE_ATTRIBUTES`; the service name and version win over them.
 */
export function createResource(settings: TelemetrySettings, serviceVersion: string | undefined): Resource {
  return {
    attributes: {
      "telemetry.sdk.name": SCOPE_NAME,
      "telemetry.sdk.language": "nodejs",
      "telemetry.sdk.version": VERSION,
      "process.pid": process.pid,
      "host.name": hostname(),
      ...settings.resourceAttributes,
      "service.name": settings.serviceName,
      ...(serviceVersion ? { "service.version": serviceVersion } : {}),
    },
    scopeName: SCOPE_NAME,
    scopeVersion: VERSION,
  };
}
