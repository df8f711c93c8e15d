// @conduit-ai/proxy — the public entry: the proxy, its surfaces' route factories, the account pool
// and its stores. Each name is listed here on purpose (no wildcard re-export): the wire/ converters, the
// targets, the relay loop and admission are internal and move with the floor plan (README, "In
// code"); src/public-api.test.ts keeps the count within its budget.

// The proxy and its config.
export { type ConduitProxy, type ProxyOptions, createProxy, registerProxyRoutes } from "./proxy.js";
export {
  type AccountConfig,
  type ApiKeyAccountConfig,
  type ModelPrice,
  type OAuthAccountConfig,
  type ProxyConfig,
  type ProxyConfigInput,
  type Vendor,
  parseProxyConfig,
  proxyConfigSchema,
} from "./config.js";

// The surfaces, for an application that mounts them one by one.
export { chatCompletionsFor, type OpenAISurfaceHost, type OpenAISurfaceOptions } from "./surfaces/openai-surfaces.js";
export { type ChatCompletionsRouteOptions, createChatCompletionsRoute } from "./surfaces/chat-completions/chat-completions-route.js";
export { createResponsesRoute, type ResponsesRouteOptions } from "./surfaces/responses/responses-route.js";
export {
  MemoryResponseStore,
  RedisResponseStore,
  type ResponseStore,
  type ResponseStoreRedis,
} from "./surfaces/responses/response-store.js";
export { createEmbeddingsRoute, type EmbeddingsRouteOptions } from "./surfaces/embeddings/embeddings-route.js";
export { createModelsRoutes, type ModelsRouteOptions } from "./surfaces/models/models-route.js";
export { type ClaudeModel, DEFAULT_CLAUDE_MODELS } from "./surfaces/models/claude-models.js";
export { type CodexRouteOptions, createCodexRoute, createCodexRouteGroup } from "./surfaces/codex/codex-route.js";
export { type CodexSenderOptions, type SendCodex, createCodexSender } from "./targets/codex/codex-relay.js";
export { createClientCheck } from "./admission/client-auth.js";
// Conduit's own errors in each vendor's shape, for a route group mounted by hand.
export { anthropicErrorShape } from "./wire/anthropic-messages/error-shape.js";
export { openaiErrorShape } from "./wire/openai-chat/error-shape.js";
export { codexErrorShape } from "./wire/codex/error-shape.js";
// OpenAI's error shape as a class (`OpenAIError` is its deprecated former name, kept until the next major).
export { OpenAIError, OpenAIWireError } from "./wire/openai-chat/openai-wire-error.js";

// The account pool and its state.
export { createAccountPool } from "./pool/create-pool.js";
export { createProviderKeyPools, type ProviderKeyPoolsOptions } from "./provider-keys.js";
export type { KeyStatusGauge, ProviderKeyPools } from "./pool/provider-key-pools.js";
export {
  type AccountPoolOptions,
  type AccountRow,
  type AccountStatus,
  type AcquireOptions,
  AccountPool,
  type Lease,
  type Selection,
} from "./pool/account-pool.js";
export { UnknownAccountError } from "./pool/unknown-account-error.js";
export type { AccountState, OAuthTokens, PoolStore, Quota, QuotaLimits, UsageRow, UsageTotals } from "./pool/store/pool-store.js";
export { MemoryPoolStore } from "./pool/store/memory-store.js";
export { type RedisPoolClient, RedisPoolStore } from "./pool/store/redis-store.js";

// Types the exports above name (a proxy's `sendMessages`, `relayMessages` and `admission`).
export type { SendMessages } from "./targets/anthropic/send-messages.js";
export type { RelayMessages } from "./targets/anthropic/messages-relay.js";
export type { RelayRequest } from "./relay/vendor-wire.js";
export type { ProxyReply } from "./relay/proxy-reply.js";
export type { ScannedUsage, TapOutcome } from "./relay/body-tap.js";
export type { AdmissionRequest, Admitted, ClientAdmission } from "./admission/client-admission.js";
