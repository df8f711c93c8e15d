import { setTracing } from "@conduit-ai/server-core";
import { type Environment, type TelemetryConfig, type TelemetrySettings, resolveTelemetrySettings } from "./telemetry-settings.js";
import { VERSION } from "./version.js";

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

/**
 * Turns tracing on when the `OTEL_*` variables or the `telemetry` config key ask for it, exporting
 * OTLP over HTTP (protobuf or JSON) from Conduit's tracing hook: with the lean built-in engine
 * (`sdk: "conduit"`, default), which loads no OpenTelemetry module, or with an OpenTelemetry
 * tracer provider (`sdk: "opentelemetry"`), whose modules are imported here, only then. Resolves
 * to `undefined` when tracing is off.
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
    const { startLeanTelemetry } = await import("./lean/start-lean-telemetry.js");
    return startLeanTelemetry(settings, environment, options);
  }
  const [api, resources, node, tracing, exporterModule, { batchOptionsFrom }, { spanLimitsFrom }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-node"),
    import("./otel-tracing.js"),
    settings.protocol === "http/json"
      ? import("@opentelemetry/exporter-trace-otlp-http")
      : import("@opentelemetry/exporter-trace-otlp-proto"),
    import("./lean/batch-exporter.js"),
    import("./lean/span-limits.js"),
  ]);
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
  setTracing(new tracing.OpenTelemetryTracing(provider.getTracer("@conduit-ai/telemetry", VERSION), settings.captureContent));
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

function sampler(node: typeof import("@opentelemetry/sdk-trace-node"), settings: TelemetrySettings) {
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
