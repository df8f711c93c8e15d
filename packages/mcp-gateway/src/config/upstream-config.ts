import { z } from "zod";

/**
 * How the gateway authenticates to one upstream server (an `mcpServers` entry's `auth`):
 * - `static`: the gateway's own secret in `headers`, the same for every caller;
 * - `forward`: the caller's own OAuth access token (the one it presented to the gateway), only to
 *   servers marked so — a Conduit credential (virtual key, client key) is never forwarded;
 * - `exchange`: an RFC 8693 token exchange of the caller's OAuth token at `provider`'s token
 *   endpoint for a token with `audience`, per caller, cached until it expires.
 */
export const upstreamAuthSchema = z.discriminatedUnion("mode", [
  z.strictObject({ mode: z.literal("static"), headers: z.record(z.string(), z.string()) }),
  z.strictObject({ mode: z.literal("forward") }),
  z.strictObject({
    mode: z.literal("exchange"),
    provider: z.string().min(1),
    audience: z.string().min(1),
    scope: z.string().min(1).optional(),
  }),
]);
export type UpstreamAuth = z.infer<typeof upstreamAuthSchema>;

const stdioSchema = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});

const httpSchema = z.object({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  /** `streamable-http` (default) or `sse`, the HTTP+SSE transport of protocol 2024-11-05. */
  transport: z.enum(["streamable-http", "sse"]).optional(),
  auth: upstreamAuthSchema.optional(),
});

/** An `mcpServers` entry as the gateway reads it (the runtime's shape plus `transport` and `auth`). */
export const upstreamServerSchema = z.union([httpSchema, stdioSchema]);

export type UpstreamStdioConfig = z.infer<typeof stdioSchema>;
export type UpstreamHttpConfig = z.infer<typeof httpSchema>;
export type UpstreamServerConfig = UpstreamStdioConfig | UpstreamHttpConfig;

export function isHttpUpstream(config: UpstreamServerConfig): config is UpstreamHttpConfig {
  return typeof (config as { url?: unknown }).url === "string";
}
