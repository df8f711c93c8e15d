/**
 * @conduit-ai/telemetry — OpenTelemetry traces for Conduit. Importing this entry loads no
 * OpenTelemetry module: `startTelemetry()` imports them only when tracing is on.
 */
export { type StartTelemetryOptions, type TelemetryHandle, startTelemetry } from "./start-telemetry.js";
export {
  type Environment,
  type TelemetryConfig,
  TelemetryConfigError,
  type TelemetryProtocol,
  type TelemetrySamplerName,
  type TelemetrySdk,
  type TelemetrySettings,
  parseKeyValueList,
  resolveTelemetrySettings,
} from "./settings/telemetry-settings.js";
export type { TelemetryAttributeProfile } from "./settings/attribute-profiles.js";
export { parseTelemetryConfig } from "./settings/telemetry-config-schema.js";
export { telemetryRequested } from "./settings/telemetry-requested.js";
export { VERSION } from "./version.js";
