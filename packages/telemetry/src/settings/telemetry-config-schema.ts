import { ConfigurationError } from "@conduit-ai/server-core";
import { z } from "zod";
import { TELEMETRY_ATTRIBUTE_PROFILES } from "./attribute-profiles.js";

/** Samplers of the OpenTelemetry specification that Conduit's engines run. */
export const TELEMETRY_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

const httpUrl = z
  .string()
  .refine((value) => /^https?:\/\/\S+$/i.test(value.trim()) && URL.canParse(value.trim()), "expected an http(s) URL");

/**
 * The `telemetry` config key: every field optional (each overrides its `OTEL_*` variable), an
 * unknown key refused. Compression is read case-insensitively, as its variable is.
 */
export const telemetryConfigSchema = z.strictObject({
  enabled: z.boolean().optional(),
  endpoint: httpUrl.optional(),
  protocol: z.enum(["http/protobuf", "http/json"]).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  compression: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(["gzip", "none"]))
    .optional(),
  serviceName: z.string().min(1).optional(),
  sampler: z.enum(TELEMETRY_SAMPLERS).optional(),
  samplerArg: z.number().min(0).max(1).optional(),
  captureContent: z.boolean().optional(),
  sdk: z.enum(["conduit", "opentelemetry"]).optional(),
  attributes: z.enum(TELEMETRY_ATTRIBUTE_PROFILES).optional(),
});

/** The `telemetry` key as checked: `TelemetryConfig` (telemetry-settings.ts) with its values known good. */
export type TelemetryConfigKey = z.output<typeof telemetryConfigSchema>;

/**
 * The `telemetry` config key checked: an object of the settings above, or `false` (tracing off
 * whatever the environment says). A mistake is a `ConfigurationError` naming the key
 * (`telemetry.sdk: expected "conduit" | "opentelemetry"`).
 *
 * @example
 * parseTelemetryConfig({ endpoint: "http://127.0.0.1:4318", sdk: "conduit" });
 */
export function parseTelemetryConfig(input: unknown): TelemetryConfigKey | false {
  if (input === false) return false;
  const result = telemetryConfigSchema.safeParse(input);
  if (!result.success) throw ConfigurationError.ofZod(result.error, "telemetry");
  return result.data;
}
