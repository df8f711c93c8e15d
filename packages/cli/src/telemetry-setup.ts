import type { TelemetryHandle } from "@conduit-ai/telemetry";
import { UsageError } from "./usage-error.js";
import { VERSION } from "./version.js";

/**
 * Starts tracing for `conduit serve`, `conduit proxy` and the demo when the config file's
 * `telemetry` key or an OTLP endpoint variable asks for it; otherwise `@conduit-ai/telemetry`
 * (and with it OpenTelemetry) is never imported. A setting that cannot work (`grpc`, an endpoint
 * that is no URL) is a usage error, reported before the server starts.
 *
 * @example
 * const telemetry = await startTelemetryIfAsked(process.env, file.telemetry, (message) => logger.warn(message));
 * // ... on drain: await telemetry?.shutdown();
 */
export async function startTelemetryIfAsked(
  env: NodeJS.ProcessEnv,
  config: unknown,
  onWarning: (message: string) => void,
): Promise<TelemetryHandle | undefined> {
  const endpointSet = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
  if (config === undefined && !endpointSet) return undefined;
  // The key passed `parseTelemetryConfig` when the config file was read (see `checkConfigSections`).
  const { startTelemetry } = await import("@conduit-ai/telemetry");
  try {
    return await startTelemetry({ environment: env, config: config as never, serviceVersion: VERSION, onWarning });
  } catch (error) {
    // An OTEL_* variable that cannot work (a grpc protocol, an endpoint that is no URL): the one config-error type.
    if ((error as { code?: unknown }).code === "INVALID_CONFIG") throw new UsageError(`Telemetry: ${(error as Error).message}`);
    // sdk "opentelemetry" without its SDK packages (optional peers): one line with the install command.
    if ((error as { code?: unknown }).code === "MISSING_DEPENDENCY") throw new UsageError(`Telemetry: ${(error as Error).message}`);
    throw error;
  }
}
