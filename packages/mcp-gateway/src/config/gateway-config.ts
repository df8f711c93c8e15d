import { z } from "zod";
import { SERVER_NAME } from "../names.js";

/** The config file's `mcpGateway` key. */
export const mcpGatewayConfigSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** Absolute path of the endpoint (default `/mcp`); the routes answer GET, POST and DELETE there. */
  path: z
    .string()
    .regex(/^\/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$/, "an absolute path such as /mcp")
    .default("/mcp"),
  /** Which `mcpServers` entries it serves (default: every one). */
  servers: z.array(z.string().regex(SERVER_NAME, "a server name: letters, digits, '-', single '_'")).optional(),
  /** A session idle this long is forgotten (default one hour). */
  sessionTtlSeconds: z
    .number()
    .int()
    .min(60)
    .max(7 * 86_400)
    .default(3600),
  /** Static client keys (at least 16 characters), beside virtual keys and the server's auth. */
  clientKeys: z.array(z.string().min(16)).optional(),
  /** OAuth 2.1 for MCP clients: the protected resource this endpoint is, and which `auth.providers` entry issues its tokens. */
  oauth: z
    .strictObject({
      provider: z.string().min(1),
      /** The endpoint's public URL (`https://gateway.example.com/mcp`): the tokens' audience (RFC 8707). */
      resource: z.url({ protocol: /^https?$/ }),
      scopes: z.array(z.string().min(1)).optional(),
    })
    .optional(),
});

export type McpGatewayConfigInput = z.input<typeof mcpGatewayConfigSchema>;
export type McpGatewayConfig = z.output<typeof mcpGatewayConfigSchema>;

/** The config file's `mcp` key, as far as the gateway reads it (the runtime reads the rest). */
export const mcpSettingsSchema = z.looseObject({
  /** One upstream call (connect included) may take this long before the caller gets an error naming the server. Default 30 000. */
  requestTimeoutMs: z.number().int().min(100).max(600_000).optional(),
});
