import { type Guardrails, mcpToolGuard } from "@conduit-ai/guardrails";
import type { Gate, ServerAdapter } from "@conduit-ai/server-core";
import type { SharedRedis } from "./redis-setup.js";
import { UsageError } from "./usage-error.js";

/**
 * The config file without `auth.providers` (the named providers the MCP gateway validates OAuth
 * tokens and exchanges tokens with): the server's own `auth` is the rest of the key, and an
 * `auth` holding only `providers` configures no server auth at all.
 */
export function withoutAuthProviders(file: { [key: string]: unknown }): { [key: string]: unknown } {
  const auth = file.auth as { providers?: unknown; [key: string]: unknown } | undefined;
  if (typeof auth !== "object" || auth === null || !("providers" in auth)) return file;
  const { providers: _providers, ...rest } = auth;
  const { auth: _auth, ...others } = file;
  return Object.keys(rest).length > 0 ? { ...others, auth: rest } : others;
}

/**
 * The config file's `mcpGateway` key (with `mcpServers`, `mcp.requestTimeoutMs` and
 * `auth.providers`): the MCP gateway mounted on `server` when `enabled`, its callers authenticated
 * by virtual keys (`gate`), the server's own auth, `mcpGateway.clientKeys` or OAuth; sessions on
 * the assembly's Redis when there is one; tool arguments and results checked by the config's
 * `guardrails` when there are any. Its sessions close when the server drains. Loaded on
 * demand; a bad value exits 2 naming the key.
 *
 * @example
 * await setupMcpGateway(server, file, { gate: governance?.gate, redis, keyPrefix, serverAuth: true });
 */
export async function setupMcpGateway(
  server: ServerAdapter,
  file: { [key: string]: unknown },
  options: {
    gate?: Gate | undefined;
    redis?: SharedRedis | undefined;
    keyPrefix?: string | undefined;
    serverAuth?: boolean | undefined;
    guardrails?: Guardrails | undefined;
  },
): Promise<void> {
  if (file.mcpGateway === undefined) return;
  const { McpGatewayConfigError, mcpGatewayFromConfig } = await import("@conduit-ai/mcp-gateway");
  let gateway: Awaited<ReturnType<typeof mcpGatewayFromConfig>>;
  try {
    gateway = await mcpGatewayFromConfig({
      mcpGateway: file.mcpGateway,
      mcpServers: file.mcpServers,
      mcp: file.mcp,
      authProviders: (file.auth as { providers?: unknown } | undefined)?.providers,
      gate: options.gate,
      serverAuth: options.serverAuth,
      toolGuard: options.guardrails ? mcpToolGuard(options.guardrails) : undefined,
      redis: options.redis,
      keyPrefix: options.keyPrefix,
      onWarning: (message) => console.warn(message),
    });
  } catch (error) {
    if (McpGatewayConfigError.isInstance(error)) throw new UsageError(`Config file: ${error.message}`);
    throw error;
  }
  if (!gateway) return;
  gateway.install(server);
  const drained = gateway;
  // Its GET streams and upstream connections end as the server drains, not after.
  (server as { onBeforeClose?: (hook: () => Promise<void>) => unknown }).onBeforeClose?.(() => drained.close());
}
