/** The span attribute profiles: which attributes an engine exports. Imports nothing of OpenTelemetry. */

/** Every profile, the default first. */
export const TELEMETRY_ATTRIBUTE_PROFILES = ["recommended", "lean"] as const;

/**
 * `recommended` (default): every attribute Conduit records, as the semantic conventions recommend.
 * `lean`: only `LEAN_ATTRIBUTES`, for a busy route where the export's bytes are tracing's cost.
 */
export type TelemetryAttributeProfile = (typeof TELEMETRY_ATTRIBUTE_PROFILES)[number];

/**
 * What the `lean` profile keeps on a span: what identifies and times a call. The span's name,
 * kind, ids, times and status (code and message) are fields of the span, kept by both profiles, and
 * so are its events (exceptions, the proxy's retries: rare, and each the reason of a failure).
 * Left out: `url.path`, `server.*`, `user_agent.original`, `network.protocol.version`,
 * `conduit.*`, the other `gen_ai.*` and every other attribute.
 */
export const LEAN_ATTRIBUTES: ReadonlySet<string> = new Set([
  "http.request.method",
  "http.route",
  "http.response.status_code",
  "error.type",
  "gen_ai.request.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.usage.cache_read.input_tokens",
  "gen_ai.usage.cache_creation.input_tokens",
]);

/**
 * The attribute keys a profile exports, or `undefined` for all of them.
 *
 * @example
 * keptAttributes("lean")?.has("url.path"); // false
 */
export function keptAttributes(profile: TelemetryAttributeProfile): ReadonlySet<string> | undefined {
  return profile === "lean" ? LEAN_ATTRIBUTES : undefined;
}
