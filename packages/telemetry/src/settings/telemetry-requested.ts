import type { Environment } from "./telemetry-settings.js";

/**
 * Whether anything asks for traces: a `telemetry` config key or an OTLP endpoint variable. A
 * host (the CLI, the demo) checks this before it imports `@conduit-ai/telemetry` at all;
 * `startTelemetry()` then decides for good (`OTEL_SDK_DISABLED`, `enabled: false`…).
 *
 * @example
 * if (telemetryRequested(process.env, config.telemetry)) await (await import("@conduit-ai/telemetry")).startTelemetry({ config: config.telemetry });
 */
export function telemetryRequested(environment: Environment, config: unknown): boolean {
  if (config !== undefined && config !== false) return true;
  return Boolean(environment.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}
