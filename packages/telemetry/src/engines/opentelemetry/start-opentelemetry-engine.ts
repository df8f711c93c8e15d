import { setTracing } from "@conduit-ai/server-core";
import { keptAttributes } from "../../settings/attribute-profiles.js";
import type { StartTelemetryOptions, TelemetryHandle } from "../../settings/telemetry-handle.js";
import type { Environment, TelemetrySettings } from "../../settings/telemetry-settings.js";
import { VERSION } from "../../version.js";
import { batchOptionsFrom } from "../conduit/batch-exporter.js";
import { spanLimitsFrom } from "../conduit/span-limits.js";
import { type OpenTelemetrySdk, loadOpenTelemetrySdk } from "./sdk-modules.js";

/**
 * Installs an OpenTelemetry tracer provider (`sdk: "opentelemetry"`) as Conduit's tracing hook,
 * registered process-wide so other OpenTelemetry instrumentation joins the traces. Its SDK
 * packages are optional peers, imported here only (a missing one is a `MissingDependencyError`
 * naming the install line for all of them).
 */
export async function startOpenTelemetryEngine(
  settings: TelemetrySettings,
  environment: Environment,
  options: StartTelemetryOptions,
): Promise<TelemetryHandle> {
  const { api, resources, node, tracing, exporter: exporterModule } = await loadOpenTelemetrySdk(settings.protocol);
  const warn = options.onWarning ?? (() => {});
  // Export failures reach the operator's log; OpenTelemetry's own chatter stays out of it.
  api.diag.setLogger(
    {
      error: (message) => warn(`telemetry: ${message}`),
      warn: (message) => warn(`telemetry: ${message}`),
      info() {},
      debug() {},
      verbose() {},
    },
    api.DiagLogLevel.WARN,
  );
  // Batching, timeouts and span limits from the environment given (the SDK alone would read process.env), as the conduit engine does.
  const batch = batchOptionsFrom(environment);
  const limits = spanLimitsFrom(environment);
  const exporter = new exporterModule.OTLPTraceExporter({
    url: settings.url,
    headers: settings.headers,
    timeoutMillis: batch.requestTimeoutMs,
    // CompressionAlgorithm's values are these strings; passed always, so the environment given wins over process.env.
    compression: settings.compression as never,
  });
  const processor = options.exportImmediately
    ? new node.SimpleSpanProcessor(exporter)
    : new node.BatchSpanProcessor(exporter, {
        maxQueueSize: batch.maxQueueSize,
        maxExportBatchSize: batch.maxExportBatchSize,
        scheduledDelayMillis: batch.scheduleDelayMs,
        exportTimeoutMillis: batch.exportTimeoutMs,
      });
  const provider = new node.NodeTracerProvider({
    resource: resources.defaultResource().merge(
      resources.resourceFromAttributes({
        ...settings.resourceAttributes,
        "service.name": settings.serviceName,
        ...(options.serviceVersion ? { "service.version": options.serviceVersion } : {}),
      }),
    ),
    sampler: sampler(node, settings),
    spanLimits: {
      attributeCountLimit: limits.attributeCount,
      attributeValueLengthLimit: limits.attributeValueLength,
      eventCountLimit: limits.eventCount,
      attributePerEventCountLimit: limits.eventAttributeCount,
    },
    spanProcessors: [processor],
  });
  // The AsyncLocalStorage context manager and W3C propagator, process-wide, so other OpenTelemetry instrumentation joins the traces.
  provider.register();
  setTracing(
    new tracing.OpenTelemetryTracing(
      provider.getTracer("@conduit-ai/telemetry", VERSION),
      settings.captureContent,
      keptAttributes(settings.attributes),
    ),
  );
  let stopped: Promise<void> | undefined;
  return {
    settings,
    forceFlush: () => provider.forceFlush(),
    shutdown() {
      stopped ??= (async () => {
        setTracing(undefined);
        try {
          await provider.shutdown();
        } finally {
          api.trace.disable();
          api.context.disable();
          api.propagation.disable();
          api.diag.disable();
        }
      })();
      return stopped;
    },
  };
}

function sampler(node: OpenTelemetrySdk["node"], settings: TelemetrySettings) {
  const ratio = () => new node.TraceIdRatioBasedSampler(settings.samplerArg);
  switch (settings.sampler) {
    case "always_on":
      return new node.AlwaysOnSampler();
    case "always_off":
      return new node.AlwaysOffSampler();
    case "traceidratio":
      return ratio();
    case "parentbased_always_off":
      return new node.ParentBasedSampler({ root: new node.AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new node.ParentBasedSampler({ root: ratio() });
    default:
      return new node.ParentBasedSampler({ root: new node.AlwaysOnSampler() });
  }
}
