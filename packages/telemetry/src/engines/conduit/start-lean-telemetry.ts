import { setTracing } from "@conduit-ai/server-core";
import { keptAttributes } from "../../settings/attribute-profiles.js";
import type { StartTelemetryOptions, TelemetryHandle } from "../../settings/telemetry-handle.js";
import type { Environment, TelemetrySettings } from "../../settings/telemetry-settings.js";
import { BatchExporter, batchOptionsFrom } from "./batch-exporter.js";
import { LeanTracing } from "./lean-tracing.js";
import { jsonEncoding } from "./otlp-json.js";
import { protobufEncoding } from "./otlp-protobuf.js";
import { createResource } from "./resource.js";
import { createSampler } from "./sampler.js";
import { spanLimitsFrom } from "./span-limits.js";

/**
 * Installs the lean engine (`sdk: "conduit"`) as Conduit's tracing hook; `startTelemetry()` calls
 * it once the settings say tracing is on. Loads no OpenTelemetry module.
 */
export function startLeanTelemetry(settings: TelemetrySettings, environment: Environment, options: StartTelemetryOptions): TelemetryHandle {
  const warn = options.onWarning ?? (() => {});
  const resource = createResource(settings, options.serviceVersion);
  const target = { url: settings.url, headers: settings.headers, compression: settings.compression };
  const batchOptions = batchOptionsFrom(environment, options.exportImmediately);
  const limits = spanLimitsFrom(environment);
  const kept = keptAttributes(settings.attributes);
  const exporter =
    settings.protocol === "http/json"
      ? new BatchExporter(jsonEncoding(resource, limits, kept), target, batchOptions, warn)
      : new BatchExporter(protobufEncoding(resource, limits, kept), target, batchOptions, warn);
  setTracing(new LeanTracing(exporter, createSampler(settings.sampler, settings.samplerArg), settings.captureContent));
  let stopped: Promise<void> | undefined;
  return {
    settings,
    forceFlush: () => exporter.forceFlush(),
    shutdown() {
      stopped ??= (async () => {
        setTracing(undefined);
        await exporter.shutdown();
      })();
      return stopped;
    },
  };
}
