import type { Gate } from "@conduit-ai/server-core";
import type { RedisEvalClient } from "@conduit-ai/server-core/internal";
import type { z } from "zod";
import { type AuthProviderSettings, exchangerFromAuthProvider, oauthFromAuthProvider } from "../auth/auth-provider-oauth.js";
import type { TokenExchanger } from "../auth/token-exchange.js";
import type { McpToolGuard } from "../dispatch/tool-guard.js";
import { type McpGateway, type McpGatewayOptions, createMcpGateway } from "../create-mcp-gateway.js";
import { McpGatewayConfigError } from "../errors.js";
import { mcpGatewayConfigSchema, mcpSettingsSchema } from "./gateway-config.js";
import { type UpstreamServerConfig, isHttpUpstream, upstreamServerSchema } from "./upstream-config.js";

export interface McpGatewayFromConfigOptions {
  /** The config file's `mcpGateway` key. */
  mcpGateway: unknown;
  /** `mcpServers`. */
  mcpServers: unknown;
  /** `mcp` (`requestTimeoutMs`). */
  mcp?: unknown;
  /** `auth.providers`: named `@conduit-ai/auth-providers` configs (OAuth and token exchange). */
  authProviders?: unknown;
  gate?: Gate | undefined;
  serverAuth?: boolean | undefined;
  /** Checks tool arguments and results (the config's `guardrails`, through `mcpToolGuard`). */
  toolGuard?: McpToolGuard | undefined;
  redis?: RedisEvalClient | undefined;
  keyPrefix?: string | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

function describe(error: z.ZodError, key: string): string {
  return error.issues.map((issue) => `${[key, ...issue.path].join(".")}: ${issue.message}`).join("; ");
}

function parse<T>(schema: z.ZodType<T>, value: unknown, key: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new McpGatewayConfigError(`invalid ${describe(result.error, key)}`);
  return result.data;
}

function providerSettings(providers: unknown, name: string, usedBy: string): AuthProviderSettings {
  const entry = (providers as Record<string, unknown> | undefined)?.[name];
  if (typeof entry !== "object" || entry === null || typeof (entry as { type?: unknown }).type !== "string")
    throw new McpGatewayConfigError(
      `${usedBy} names auth provider "${name}", but auth.providers.${name} is not a provider config with a type`,
    );
  return entry as AuthProviderSettings;
}

/**
 * The gateway the config file asks for (`mcpGateway`, `mcpServers`, `mcp`, `auth.providers`), or
 * undefined when `mcpGateway.enabled` is not true. Every bad value is an `McpGatewayConfigError`
 * naming its key; `@conduit-ai/auth-providers` is loaded only for OAuth or token exchange.
 *
 * @example
 * const gateway = await mcpGatewayFromConfig({ mcpGateway: file.mcpGateway, mcpServers: file.mcpServers, mcp: file.mcp, gate, redis });
 * gateway?.install(server);
 */
export async function mcpGatewayFromConfig(options: McpGatewayFromConfigOptions): Promise<McpGateway | undefined> {
  if (options.mcpGateway === undefined) return undefined;
  const config = parse(mcpGatewayConfigSchema, options.mcpGateway, "mcpGateway");
  if (!config.enabled) return undefined;
  const settings = parse(mcpSettingsSchema, options.mcp ?? {}, "mcp");
  const declared = (options.mcpServers ?? {}) as Record<string, unknown>;
  if (typeof declared !== "object" || Array.isArray(declared))
    throw new McpGatewayConfigError("invalid mcpServers: an object of servers by name", "mcpServers");
  const names = config.servers ?? Object.keys(declared);
  const servers: Record<string, UpstreamServerConfig> = {};
  for (const name of names) {
    if (!Object.hasOwn(declared, name))
      throw new McpGatewayConfigError(`mcpGateway.servers names "${name}", which is not an mcpServers entry`, "mcpGateway.servers");
    servers[name] = parse(upstreamServerSchema, declared[name], `mcpServers.${name}`);
  }
  if (names.length === 0) throw new McpGatewayConfigError("mcpGateway is enabled but there is no mcpServers entry to serve");
  const exchangers: Record<string, TokenExchanger> = {};
  for (const [name, server] of Object.entries(servers)) {
    if (!isHttpUpstream(server) || server.auth?.mode !== "exchange") continue;
    const provider = server.auth.provider;
    exchangers[provider] ??= exchangerFromAuthProvider(
      provider,
      providerSettings(options.authProviders, provider, `mcpServers.${name}.auth`),
    );
  }
  const gatewayOptions: McpGatewayOptions = {
    servers,
    path: config.path,
    sessionTtlSeconds: config.sessionTtlSeconds,
    ...(settings.requestTimeoutMs ? { requestTimeoutMs: settings.requestTimeoutMs } : {}),
    ...(config.clientKeys ? { clientKeys: config.clientKeys } : {}),
    ...(options.gate ? { gate: options.gate } : {}),
    ...(options.serverAuth ? { serverAuth: true } : {}),
    ...(options.toolGuard ? { toolGuard: options.toolGuard } : {}),
    ...(config.oauth
      ? {
          oauth: await oauthFromAuthProvider(
            config.oauth.provider,
            providerSettings(options.authProviders, config.oauth.provider, "mcpGateway.oauth"),
            config.oauth.resource,
            config.oauth.scopes,
          ),
        }
      : {}),
    tokenExchangers: exchangers,
    ...(options.redis ? { redis: options.redis } : {}),
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  };
  return createMcpGateway(gatewayOptions);
}
