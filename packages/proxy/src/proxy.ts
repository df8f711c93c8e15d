import type { Guardrails } from "@conduit-ai/guardrails";
import {
  ConfigurationError,
  type PriceTable,
  mergePrices,
  type Gate,
  type ProxyRoutesProvider,
  type ProxySurfaces,
  type RouteDefinition,
  type RouteGroup,
  type Runtime,
  type ServerAdapter,
  type ServerContext,
} from "@conduit-ai/server-core";
import { RedisRateLimitStore } from "@conduit-ai/server-core/middleware";
import { createRateLimiter } from "@conduit-ai/server-core/internal";
import { type RelayMessages, createMessagesRelay, messagesWire } from "./targets/anthropic/messages-relay.js";
import { createRelay } from "./relay/relay.js";
import { CLIENT_LIMIT_KEY, type ClientAdmission, createClientAdmission } from "./admission/client-admission.js";
import { createClientCheck } from "./admission/client-auth.js";
import { createCodexRouteGroup } from "./surfaces/codex/codex-route.js";
import { createCodexRelay } from "./targets/codex/codex-relay.js";
import { type ProxyConfig, type ProxyConfigInput, parseProxyConfig } from "./config.js";
import { AccountPool } from "./pool/account-pool.js";
import { replyToResponse } from "./relay/proxy-reply.js";
import { UpstreamClient } from "./relay/transport.js";
import { createProxyRouteGroups } from "./surfaces/proxy-routes.js";
import type { SendMessages } from "./targets/anthropic/send-messages.js";
import { MemoryResponseStore, RedisResponseStore, type ResponseStore } from "./surfaces/responses/response-store.js";
import { chatCompletionsFor } from "./surfaces/openai-surfaces.js";
import { MemoryPoolStore } from "./pool/store/memory-store.js";
import type { PoolStore } from "./pool/store/pool-store.js";
import { type RedisPoolClient, RedisPoolStore } from "./pool/store/redis-store.js";
import { guardedStore } from "./pool/store/store-outage.js";
import { type ModelTable, type RouteTarget, createModelTable } from "./routing/model-table.js";
import { RedisRoutingStats } from "./routing/routing-stats.js";
import type { ProviderKeyPools } from "./pool/provider-key-pools.js";
import { responseCacheOf } from "./cache/create-response-cache.js";
import type { ResponseCache } from "./cache/response-cache.js";
import { createTargets } from "./routing/targets.js";

export interface ProxyOptions {
  /** Required when `store: "redis"`; the caller owns (and closes) it. */
  redis?: RedisPoolClient;
  /** Keys of the Redis store start with this (default `conduit:proxy:`); processes sharing a pool share it. */
  redisPrefix?: string;
  /** A store of your own; wins over `store` in the config. */
  store?: PoolStore;
  /** HTTP client of the OAuth token endpoint and the `/limits` probes (Messages go through Node's http with keep-alive). */
  fetch?: typeof fetch;
  /** Problems worth a log line; messages never hold secrets. */
  onWarning?: (message: string) => void;
  /**
   * Builds the OpenAI-compatible surfaces over this proxy (`/v1/chat/completions`,
   * `/v1/responses`, `/v1/models`, …). Default: `chatCompletionsFor(options.runtime)` — Claude
   * models through the pool, other models answered by `runtime` when given (without one, OpenAI's
   * 404 naming the model). Pass your own to change their options (`dropParams`, `isClaudeModel`).
   */
  chatCompletions?: (proxy: ConduitProxy) => RouteDefinition | RouteDefinition[];
  /**
   * A gatekeeper (e.g. `@conduit-ai/governance`): every AI surface asks it to admit each call
   * (virtual keys, limits, budgets) instead of checking `clientKeys`, and settles with the real usage.
   */
  gate?: Gate;
  /**
   * Guardrails (`createGuardrails` of `@conduit-ai/guardrails`) on every AI surface, both ways:
   * the configured defaults plus the lists a gate's key and team name. Absent: none.
   */
  guardrails?: Guardrails;
  /**
   * Answers runtime targets of the `models` table on `/v1/messages` (a Claude model falling back
   * to `local` or `<provider>/<model>`, translated both ways). The OpenAI surfaces take theirs
   * from `chatCompletionsFor(runtime)`.
   */
  runtime?: Runtime;
  /**
   * The runtime providers' key pools (`createProviderKeyPools`, also given to `createRuntime` as
   * `keySources`): routing tries a provider whose keys all cool or are disabled last.
   */
  keyPools?: ProviderKeyPools;
}

/** A configured proxy: its pool, its `sendMessages`, and its routes for `createAllRoutes`. */
export interface ConduitProxy extends ProxyRoutesProvider {
  readonly config: ProxyConfig;
  readonly pool: AccountPool;
  readonly sendMessages: SendMessages;
  /** The same relay as `sendMessages`, answering a `ProxyReply` (no WHATWG `Response` in between): what the surfaces send through. */
  readonly relayMessages: RelayMessages;
  /** Responses kept for `/v1/responses`' `previous_response_id`: Redis when the pool is, else this process. */
  readonly responseStore: ResponseStore;
  /** The `models` routing table every surface routes by (one table: one set of in-flight counts and latencies). */
  readonly models: ModelTable;
  /** Who may call the AI surfaces and how much (client keys or the gate, then the per-credential limit). */
  readonly admission: ClientAdmission;
  /** The exact response cache (`proxy.cache`, or the keys and teams that opt in). */
  readonly responseCache: ResponseCache;
  /** The proxy's price table (`prices` over the defaults): what a cache hit saves is counted at it. */
  readonly prices: PriceTable;
  createProxyRoutes(surfaces?: Partial<ProxySurfaces>): RouteGroup[];
  /** `POST /backend-api/codex/responses` over the pool's codex accounts, with the codex error shape (mounted by `conduit proxy`). */
  createCodexRoutes(): RouteGroup;
  close(): Promise<void>;
}

/**
 * A proxy from the `proxy` config section (validated; defaults filled).
 *
 * @example
 * const proxy = createProxy({ enabled: true, accounts: [{ id: "a", type: "api-key", apiKey }], clientKeys: [clientKey] });
 * registerAllRoutes(server, undefined, { proxy });
 */
export function createProxy(input: ProxyConfigInput | ProxyConfig, options: ProxyOptions = {}): ConduitProxy {
  const config = parseProxyConfig(input);
  const store = options.store ?? storeFor(config, options);
  const pool = new AccountPool({ config, store: guardedStore(store), ...(options.fetch ? { fetch: options.fetch } : {}) });
  const upstream = new UpstreamClient();
  const relayMessages = createMessagesRelay({ pool, config, upstream, ...(options.onWarning ? { onWarning: options.onWarning } : {}) });
  const relayCountTokens = createRelay({
    pool,
    config,
    upstream,
    wire: messagesWire(config, "/v1/messages/count_tokens"),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  const sendMessages: SendMessages = async (body, init) => replyToResponse(await relayMessages(body, init));
  const isClientAllowed = createClientCheck(config.clientKeys);
  const openaiSurfaces = options.chatCompletions ?? chatCompletionsFor(options.runtime);
  const models = createModelTable(config.models, {
    prices: mergePrices(config.prices),
    // Calls in flight counted across processes when the pool is shared.
    ...(config.store === "redis" && options.redis
      ? { stats: new RedisRoutingStats(options.redis, options.redisPrefix, config.timeoutMs) }
      : {}),
    ...(options.keyPools ? { usable: usableWith(options.keyPools) } : {}),
  });
  const targets = createTargets({ relayMessages, runtime: options.runtime });
  const responseStore: ResponseStore =
    config.store === "redis" && options.redis ? new RedisResponseStore(options.redis, options.redisPrefix) : new MemoryResponseStore();
  const cache = responseCacheOf(config, { redis: options.redis, redisPrefix: options.redisPrefix, onWarning: options.onWarning });
  const admission = createClientAdmission({
    clientKeys: config.clientKeys,
    ...(config.rateLimit.enabled ? { limiter: clientLimiter(config, options) } : {}),
    ...(options.gate ? { gate: options.gate } : {}),
    ...(options.guardrails ? { guardrails: options.guardrails } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  const proxy: ConduitProxy = {
    config,
    pool,
    sendMessages,
    relayMessages,
    responseStore,
    admission,
    models,
    responseCache: cache,
    prices: mergePrices(config.prices),
    createCodexRoutes() {
      const relay = createCodexRelay({ pool, config, upstream, ...(options.onWarning ? { onWarning: options.onWarning } : {}) });
      return createCodexRouteGroup({ relayCodex: relay, admission, timeoutMs: config.timeoutMs });
    },
    createProxyRoutes(surfaces = {}) {
      // Every surface this proxy can serve unless asked otherwise: a library user mounting
      // `createProxy(config)` gets the OpenAI-compatible ones too, not only `/v1/messages`.
      const wanted = { messages: surfaces.messages ?? true, chatCompletions: surfaces.chatCompletions ?? true };
      const deps = {
        pool,
        config,
        models,
        targets,
        relayMessages,
        relayCountTokens,
        isClientAllowed,
        admission,
        cache,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.onWarning ? { onWarning: options.onWarning } : {}),
      };
      return createProxyRouteGroups(deps, wanted, wanted.chatCompletions ? openaiSurfaces(proxy) : undefined);
    },
    close: async () => {
      upstream.close();
      await store.close();
    },
  };
  return proxy;
}

/** A runtime target is usable while its provider has a key that is neither cooling nor disabled. */
function usableWith(keyPools: ProviderKeyPools): (target: RouteTarget) => boolean | Promise<boolean> {
  return (target) => {
    if (target.kind !== "runtime") return true;
    const slash = target.name.indexOf("/");
    return keyPools.usable(slash > 0 ? target.name.slice(0, slash) : target.name);
  };
}

/** The per-credential limiter: in memory, or shared through the pool's Redis (fail closed). */
function clientLimiter(config: ProxyConfig, options: ProxyOptions) {
  const { maxRequests, windowMs } = config.rateLimit;
  const store =
    config.store === "redis" && options.redis
      ? new RedisRateLimitStore(options.redis, { prefix: `${options.redisPrefix ?? "conduit:proxy:"}ratelimit:` })
      : undefined;
  return createRateLimiter({
    maxRequests,
    windowMs,
    subWindows: 6,
    message: `Too many requests for this client key (${maxRequests} per ${windowMs / 1000} s)`,
    keyGenerator: (ctx: ServerContext) => String(ctx.state[CLIENT_LIMIT_KEY]),
    ...(store ? { store } : {}),
  });
}

function storeFor(config: ProxyConfig, options: ProxyOptions): PoolStore {
  if (config.store === "memory") return new MemoryPoolStore();
  if (!options.redis) throw new ConfigurationError('proxy.store is "redis" but no Redis client was given (createProxy(config, { redis }))');
  return new RedisPoolStore(options.redis, options.redisPrefix);
}

/**
 * Mounts the proxy's surfaces on an adapter without the other built-in groups.
 *
 * @example
 * registerProxyRoutes(server, createProxy(config), { messages: true });
 */
export function registerProxyRoutes(
  adapter: Pick<ServerAdapter, "registerRouteGroup">,
  proxy: ConduitProxy,
  surfaces?: Partial<ProxySurfaces>,
): RouteGroup[] {
  const groups = proxy.createProxyRoutes(surfaces);
  for (const group of groups) adapter.registerRouteGroup(group);
  return groups;
}
