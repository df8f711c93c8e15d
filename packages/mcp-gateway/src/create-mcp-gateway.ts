import type { DependencyHealth, Gate, RouteGroup, ServerAdapter } from "@conduit-ai/server-core";
import type { RedisEvalClient } from "@conduit-ai/server-core/internal";
import { CallerResolver } from "./auth/caller-resolver.js";
import type { OAuthResource } from "./auth/oauth-resource.js";
import type { TokenExchanger } from "./auth/token-exchange.js";
import type { McpToolGuard } from "./dispatch/tool-guard.js";
import type { UpstreamServerConfig } from "./config/upstream-config.js";
import { McpGatewayConfigError } from "./errors.js";
import type { EndpointDependencies } from "./http/endpoint-deps.js";
import { gatewayRoutes } from "./http/gateway-routes.js";
import { isServerName } from "./names.js";
import { SessionRelay } from "./session/session-relay.js";
import { LiveSessions, type LiveSessionsOptions } from "./session/live-sessions.js";
import { RedisSessionStore } from "./session/redis-session-store.js";
import { MemorySessionStore, type McpSessionStore } from "./session/session-store.js";
import { UpstreamProbes } from "./upstream/upstream-probes.js";

export interface McpGatewayOptions {
  /** The upstream servers it serves, by name (`mcpServers` entries). */
  servers: Record<string, UpstreamServerConfig>;
  /** Absolute path of the endpoint. Default `/mcp`. */
  path?: string;
  /** A session idle this long is forgotten. Default 3600. */
  sessionTtlSeconds?: number;
  /** `mcp.requestTimeoutMs`: one upstream call, connecting included. Default 30 000. */
  requestTimeoutMs?: number;
  /** Static client keys. */
  clientKeys?: string[];
  /** Governance's gate: virtual keys, their MCP policies, rpm and concurrency for tool calls, usage events. */
  gate?: Gate;
  /** Checks tool arguments before they go upstream and results before the client gets them (`mcpToolGuard` of `@conduit-ai/guardrails`). */
  toolGuard?: McpToolGuard;
  /** The server's own auth middleware authenticates callers too (`ctx.user`). */
  serverAuth?: boolean;
  /** OAuth 2.1 for MCP clients (see `oauthFromAuthProvider`). */
  oauth?: OAuthResource;
  /** Token exchangers of `exchange` servers, by auth provider name. */
  tokenExchangers?: Record<string, TokenExchanger>;
  /** Where sessions live; default Redis when `redis` is given, else memory. */
  sessionStore?: McpSessionStore;
  /** The server's Redis client (any topology): sessions continue on every process. */
  redis?: RedisEvalClient;
  /** Prefix of the Redis keys (default `conduit:`; sessions under `<prefix>mcp:session:`). */
  keyPrefix?: string;
  /** SSE keep-alive comment after this much silence (default 15 000; 0 never). */
  keepAliveMs?: number;
  /** This process's hold on idle sessions. */
  liveSessions?: LiveSessionsOptions;
  onWarning?: (message: string) => void;
}

/** An MCP gateway, ready to mount on a Conduit server. */
export interface McpGateway {
  readonly path: string;
  /** The endpoint's routes (and the OAuth metadata's). */
  routes(): RouteGroup;
  /** Mounts the routes and each server's health check (`mcp-gateway:<name>`). */
  install(server: ServerAdapter): void;
  /** Each server's health, by `mcp-gateway:<name>`. */
  health(): Promise<Record<string, DependencyHealth>>;
  /** Sessions this process holds now (tests, metrics). */
  readonly liveSessionCount: number;
  close(): Promise<void>;
}

/** A server that lists dependencies in its health routes (every Conduit adapter). */
function hasHealthChecks(
  server: ServerAdapter,
): server is ServerAdapter & { registerHealthCheck(name: string, check: () => Promise<DependencyHealth>): void } {
  return typeof (server as { registerHealthCheck?: unknown }).registerHealthCheck === "function";
}

/**
 * The MCP gateway: the configured MCP servers behind one Streamable HTTP endpoint, for callers
 * authenticated by a client key, a virtual key (governance's gate), the server's own auth or an
 * OAuth access token — never open: without any of them it refuses to be built.
 *
 * @example
 * const gateway = createMcpGateway({
 *   servers: { files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] } },
 *   gate: governance.gate,
 *   redis,
 * });
 * gateway.install(server); // POST/GET/DELETE /mcp
 */
export function createMcpGateway(options: McpGatewayOptions): McpGateway {
  const path = options.path ?? "/mcp";
  const names = Object.keys(options.servers);
  for (const name of names)
    if (!isServerName(name))
      throw new McpGatewayConfigError(
        `mcpServers: "${name}" cannot be served by the gateway: letters, digits, '-' and single '_' only`,
        `mcpServers.${name}`,
      );
  if (!options.clientKeys?.length && !options.gate && !options.serverAuth && !options.oauth)
    throw new McpGatewayConfigError(
      "mcpGateway needs a client credential: virtual keys (a keys section), the server's auth, mcpGateway.clientKeys or mcpGateway.oauth; it is never open",
    );
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const onWarning = options.onWarning ?? (() => undefined);
  const servers = new Map(Object.entries(options.servers));
  const store =
    options.sessionStore ??
    (options.redis ? new RedisSessionStore(options.redis, `${options.keyPrefix ?? "conduit:"}mcp:session:`) : new MemorySessionStore());
  const sessions = new LiveSessions(
    {
      servers,
      timeoutMs,
      store,
      exchangers: new Map(Object.entries(options.tokenExchangers ?? {})),
      toolGuard: options.toolGuard,
      onWarning,
    },
    options.liveSessions,
  );
  const probes = new UpstreamProbes(servers, timeoutMs);
  const relay = options.redis ? SessionRelay.over(options.redis, `${options.keyPrefix ?? "conduit:"}mcp:relay`, sessions) : undefined;
  const dependencies: EndpointDependencies = {
    gateway: { serverNames: names, gate: options.gate, store, timeoutMs, toolGuard: options.toolGuard },
    callers: new CallerResolver({
      clientKeys: options.clientKeys,
      gate: options.gate,
      serverAuth: options.serverAuth,
      oauth: options.oauth,
    }),
    sessions,
    oauth: options.oauth,
    sessionTtlMs: (options.sessionTtlSeconds ?? 3600) * 1000,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    relay,
    onWarning,
  };
  const routes = () => gatewayRoutes(path, dependencies);
  return {
    path,
    routes,
    install(server) {
      server.registerRouteGroup(routes());
      if (hasHealthChecks(server)) for (const name of names) server.registerHealthCheck(`mcp-gateway:${name}`, () => probes.check(name));
    },
    async health() {
      const entries = await Promise.all(names.map(async (name) => [`mcp-gateway:${name}`, await probes.check(name)] as const));
      return Object.fromEntries(entries);
    },
    get liveSessionCount() {
      return sessions.size;
    },
    async close() {
      relay?.close();
      await sessions.close();
      await probes.close();
    },
  };
}
