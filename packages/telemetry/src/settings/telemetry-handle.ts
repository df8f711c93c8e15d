import type { Environment, TelemetryConfig, TelemetrySettings } from "./telemetry-settings.js";

/** What `startTelemetry()` takes (each engine reads it too). */
export interface StartTelemetryOptions {
  /** Where the `OTEL_*` variables are read (default `process.env`). */
  environment?: Environment;
  /** The `telemetry` config key; its fields override the variables, `false` turns tracing off. */
  config?: TelemetryConfig | false;
  /** `service.version` of the resource (e.g. the CLI's version). */
  serviceVersion?: string;
  /** Export problems and ignored settings (never with the export headers). */
  onWarning?: (message: string) => void;
  /** Send each span as soon as it ends instead of in batches (tests and short scripts). Default false. */
  exportImmediately?: boolean;
}

/** A running tracer. */
export interface TelemetryHandle {
  readonly settings: TelemetrySettings;
  /** Sends every span ended so far. */
  forceFlush(): Promise<void>;
  /** Sends what is left and removes the tracer (the tracing hook is a no-op again). */
  shutdown(): Promise<void>;
}
