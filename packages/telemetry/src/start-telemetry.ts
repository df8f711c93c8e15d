import type { StartTelemetryOptions, TelemetryHandle } from "./settings/telemetry-handle.js";
import { resolveTelemetrySettings } from "./settings/telemetry-settings.js";

export type { StartTelemetryOptions, TelemetryHandle };

/**
 * Turns tracing on when the `OTEL_*` variables or the `telemetry` config key ask for it, exporting
 * OTLP over HTTP (protobuf or JSON) from Conduit's tracing hook: with the lean built-in engine
 * (`sdk: "conduit"`, default), which loads no OpenTelemetry module, or with an OpenTelemetry
 * tracer provider (`sdk: "opentelemetry"`, its SDK packages installed beside this one), imported
 * only then. Resolves to `undefined` when tracing is off.
 *
 * @example
 * const telemetry = await startTelemetry({ config: conduitConfig.telemetry });
 * // ... serve ...
 * await telemetry?.shutdown();
 */
export async function startTelemetry(options: StartTelemetryOptions = {}): Promise<TelemetryHandle | undefined> {
  const warn = options.onWarning ?? (() => {});
  const environment = options.environment ?? process.env;
  const settings = resolveTelemetrySettings(environment, options.config ?? {}, warn);
  if (settings === undefined) return undefined;
  if (settings.sdk === "conduit") {
    const { startLeanTelemetry } = await import("./engines/conduit/start-lean-telemetry.js");
    return startLeanTelemetry(settings, environment, options);
  }
  const { startOpenTelemetryEngine } = await import("./engines/opentelemetry/start-opentelemetry-engine.js");
  return startOpenTelemetryEngine(settings, environment, options);
}
