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
export type { SendMessages } from "./targets/anthropic/send-messages.js";
export { createMessagesRelay, type MessagesSenderOptions, type RelayMessages, messagesWire } from "./targets/anthropic/messages-relay.js";
export { type Relay, type RelayOptions, createRelay } from "./relay/relay.js";
export type { RateLimitVerdict, RelayRequest, VendorWire } from "./relay/vendor-wire.js";
export { type ScannedUsage, type TapOutcome, type UsageScanner, tapBody } from "./relay/body-tap.js";
export { type ProxyReply, replyToResponse } from "./relay/proxy-reply.js";
export { type AnthropicErrorType, anthropicError, anthropicErrorReply } from "./wire/anthropic-messages/errors.js";
export { anthropicErrorShape, anthropicTypeOf, writeAnthropicError } from "./wire/anthropic-messages/error-shape.js";
export { retryHint } from "./relay/final-status.js";
export {
  type HeaderRecord,
  MAX_COOLDOWN_MS,
  parseRateLimitHeaders,
  rateLimitResetAt,
} from "./wire/anthropic-messages/rate-limit-headers.js";
export { tapUsage } from "./wire/anthropic-messages/usage-tap.js";
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
export type { AccountState, OAuthTokens, PoolStore, Quota, QuotaLimits, UsageRow, UsageTotals } from "./pool/store/pool-store.js";
export { MemoryPoolStore } from "./pool/store/memory-store.js";
export { type RedisPoolClient, RedisPoolStore } from "./pool/store/redis-store.js";

export { createAccountPool } from "./pool/create-pool.js";
// OpenAI-compatible chat completions (issue 11).
export { type ChatCompletionsRouteOptions, createChatCompletionsRoute } from "./surfaces/chat-completions/chat-completions-route.js";
export { chatCompletionsFor, type OpenAISurfaceHost, type OpenAISurfaceOptions } from "./surfaces/openai-surfaces.js";
export { createEmbeddingsRoute, type EmbeddingsRouteOptions } from "./surfaces/embeddings/embeddings-route.js";
export { createResponsesRoute, type ResponsesRouteOptions } from "./surfaces/responses/responses-route.js";
export {
  MemoryResponseStore,
  RedisResponseStore,
  type ResponseStore,
  type ResponseStoreRedis,
} from "./surfaces/responses/response-store.js";
export { type ChatRequest, chatRequestSchema } from "./wire/openai-chat/chat-request-schema.js";
export { toMessagesRequest } from "./wire/openai-chat/to-messages-request.js";
export type { MessagesRequest } from "./wire/anthropic-messages/messages-request.js";
export { fromMessagesResponse, type ChatCompletion } from "./wire/openai-chat/from-messages-response.js";
export { ChunkTranslator, type ChatCompletionChunk } from "./wire/openai-chat/chunk-translator.js";
export { OpenAIError, OpenAIWireError, fromVendorError } from "./wire/openai-chat/openai-wire-error.js";
export { openaiErrorShape, openaiKindOf, writeOpenAIError } from "./wire/openai-chat/error-shape.js";
// The codex engine (mounted by `conduit proxy` only).
export { type CodexRouteOptions, createCodexRoute, createCodexRouteGroup } from "./surfaces/codex/codex-route.js";
export { codexErrorShape, writeCodexError } from "./wire/codex/error-shape.js";
export { type CodexSenderOptions, type SendCodex, codexWire, createCodexRelay, createCodexSender } from "./targets/codex/codex-relay.js";
export { DEFAULT_USAGE_LIMIT_COOLDOWN_MS, codexError, codexErrorReply, usageLimitResetAt } from "./wire/codex/usage-limit.js";
export { createModelsRoutes, type ModelsRouteOptions } from "./surfaces/models/models-route.js";
export { type ClaudeModel, DEFAULT_CLAUDE_MODELS } from "./surfaces/models/claude-models.js";
