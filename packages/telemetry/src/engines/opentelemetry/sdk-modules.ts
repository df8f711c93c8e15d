import { ErrorCode, MissingDependencyError, ServerAdapterError, importOptionalDependency } from "@conduit-ai/server-core";
import type { TelemetryProtocol } from "../../settings/telemetry-settings.js";

/**
 * The OpenTelemetry SDK packages the `opentelemetry` engine needs. They are optional peers of
 * this package: the default engine (`conduit`) needs none of them, so a default install carries
 * none of their 17 MB.
 */
export const OPENTELEMETRY_SDK_PACKAGES = [
  "@opentelemetry/api",
  "@opentelemetry/core",
  "@opentelemetry/resources",
  "@opentelemetry/sdk-trace-node",
  "@opentelemetry/exporter-trace-otlp-proto",
  "@opentelemetry/exporter-trace-otlp-http",
] as const;

const FEATURE = 'the OpenTelemetry tracing engine (telemetry sdk "opentelemetry")';

/** One missing package names them all: the operator installs the engine in one line, not six. */
async function load<T>(name: (typeof OPENTELEMETRY_SDK_PACKAGES)[number], importer: () => Promise<T>): Promise<T> {
  try {
    return await importOptionalDependency(name, importer, { feature: FEATURE });
  } catch (error) {
    if (!ServerAdapterError.isInstance(error) || error.code !== ErrorCode.MISSING_DEPENDENCY) throw error;
    throw new MissingDependencyError(name, { packages: [...OPENTELEMETRY_SDK_PACKAGES], feature: FEATURE, cause: error });
  }
}

/** The modules one engine start uses. */
export interface OpenTelemetrySdk {
  api: typeof import("@opentelemetry/api");
  resources: typeof import("@opentelemetry/resources");
  node: typeof import("@opentelemetry/sdk-trace-node");
  exporter: typeof import("@opentelemetry/exporter-trace-otlp-proto") | typeof import("@opentelemetry/exporter-trace-otlp-http");
  tracing: typeof import("./opentelemetry-tracing.js");
}

/**
 * The SDK modules of one engine start, imported only now; the exporter of the protocol asked for.
 *
 * @example
 * const { node, exporter } = await loadOpenTelemetrySdk("http/protobuf");
 */
export async function loadOpenTelemetrySdk(protocol: TelemetryProtocol): Promise<OpenTelemetrySdk> {
  const [api, resources, node, exporter] = await Promise.all([
    load("@opentelemetry/api", () => import("@opentelemetry/api")),
    load("@opentelemetry/resources", () => import("@opentelemetry/resources")),
    load("@opentelemetry/sdk-trace-node", () => import("@opentelemetry/sdk-trace-node")),
    protocol === "http/json"
      ? load("@opentelemetry/exporter-trace-otlp-http", () => import("@opentelemetry/exporter-trace-otlp-http"))
      : load("@opentelemetry/exporter-trace-otlp-proto", () => import("@opentelemetry/exporter-trace-otlp-proto")),
  ]);
  // `opentelemetry-tracing.ts` imports the API and core statically; loaded here, after the check above.
  const tracing = await load("@opentelemetry/core", () => import("./opentelemetry-tracing.js"));
  return { api, resources, node, exporter, tracing };
}
