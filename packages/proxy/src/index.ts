// @conduit-ai/proxy — the spec's "Proxy surfaces" (issue 11).
export {
  type AccountConfig,
  type ApiKeyAccountConfig,
  type ModelPrice,
  type OAuthAccountConfig,
  type ProxyConfig,
  type ProxyConfigInput,
  type Vendor,
  accountConfigSchema,
  parseProxyConfig,
  proxyConfigSchema,
} from "./config.js";
export { type ConduitProxy, type ProxyOptions, createProxy, registerProxyRoutes } from "./proxy.js";
export type { SendMessages } from "./send-messages.js";
export { createMessagesRelay, type MessagesSenderOptions, type RelayMessages, messagesWire } from "./anthropic/messages-sender.js";
export { type Relay, type RelayOptions, createRelay } from "./relay/relay.js";
export type { RateLimitVerdict, RelayRequest, VendorWire } from "./relay/vendor-wire.js";
export { type ScannedUsage, type TapOutcome, type UsageScanner, tapBody } from "./relay/body-tap.js";
export { type ProxyReply, replyToResponse } from "./relay/proxy-reply.js";
export { type AnthropicErrorType, anthropicError, anthropicErrorReply } from "./anthropic/errors.js";
export { anthropicErrorShape, anthropicTypeOf, writeAnthropicError } from "./anthropic/error-shape.js";
export { retryHint } from "./relay/final-status.js";
export { type HeaderRecord, MAX_COOLDOWN_MS, parseRateLimitHeaders, rateLimitResetAt } from "./anthropic/rate-limit-headers.js";
export { tapUsage } from "./anthropic/usage-tap.js";
export {
  type AccountPoolOptions,
  type AccountRow,
  type AccountStatus,
  type AcquireOptions,
  AccountPool,
  type Lease,
  type Selection,
} from "./pool/account-pool.js";
export { OAuthRefresher, RefreshRejectedError } from "./pool/oauth-refresher.js";
export { UnknownAccountError } from "./pool/unknown-account-error.js";
export { createClientCheck, presentedCredential } from "./admission/client-auth.js";
export {
  type AdmissionRequest,
  type Admitted,
  type ClientAdmission,
  type ClientAdmissionOptions,
  createClientAdmission,
} from "./admission/client-admission.js";
export { GateRefusedError, type GateRefusalDetails, gateRefusalOf } from "./admission/gate-refusal.js";
export { admissionRequestOf } from "./admission/request-estimate.js";
export { DEFAULT_PRICES, type PriceTable, type TokenUsage, costOf, mergePrices, priceOf } from "./prices.js";
export type { AccountState, OAuthTokens, PoolStore, Quota, QuotaLimits, UsageRow, UsageTotals } from "./store/pool-store.js";
export { MemoryPoolStore } from "./store/memory-store.js";
export { type RedisPoolClient, RedisPoolStore } from "./store/redis-store.js";

export { createAccountPool } from "./pool/create-pool.js";
// OpenAI-compatible chat completions (issue 11).
export * from "./openai/index.js";
// The codex engine (mounted by `conduit proxy` only).
export * from "./codex/index.js";
export { createModelsRoutes, type ModelsRouteOptions } from "./models/models-route.js";
export { type ClaudeModel, DEFAULT_CLAUDE_MODELS } from "./models/claude-models.js";
