import type { Logger } from "@conduit-ai/server-core";
import type { RuntimeRedis } from "./redis-client.js";
import type { RuntimeAuthOption } from "./auth/call-token-auth.js";
import type { McpConnectionOptions, McpServerConfig } from "./mcp/mcp-config.js";
import type { ConversationStore } from "./memory/conversation-store.js";
import type { MemoryOptions } from "./memory/memory-options.js";
import type { MemoryLimits } from "./memory/memory-limits.js";
import type { KeySourceFactory } from "./providers/configured-provider.js";
import type { AnthropicProviderOptions, Environment, OpenAIProviderOptions } from "./providers/provider-config.js";
import type { ProviderConfig } from "./providers/providers-config.js";
import type { ToolDefinition } from "./tools/runtime-tool.js";
import type { UsageRecord } from "./usage-record.js";
import type { RuntimeUsageOptions } from "./usage/usage-options.js";

/** Limits on a provider that accepted a call and then stays silent. */
export interface ProviderTimeout {
  stepMs?: number;
  chunkMs?: number;
}

/** Options of `createRuntime`; anything omitted comes from the environment or an embedded default. */
export interface RuntimeOptions {
  /** Where `OPENAI_*`, `ANTHROPIC_*`, the other provider shortcuts, `"env:NAME"` secrets and `REDIS_URL` are read; default `process.env`. */
  env?: Environment;
  /**
   * Named providers: `{ "<name>": { type, ...settings } }` (types `openai`, `anthropic`,
   * `openai-compatible`, `azure-openai`, `google`, `vertex`, `bedrock`, `mistral`, `cohere`, `xai`,
   * `groq`, `deepseek`), called as `model: "<name>/<model>"`. They come first (the first is the
   * default provider); environment shortcuts add the names not given here. A bad entry throws
   * `ProviderConfigError` naming the key.
   */
  providers?: Record<string, ProviderConfig>;
  /**
   * The `KeySource` of each provider with `apiKeys` (how its key is chosen per request): the
   * server's key pool plugs in here. Undefined (or returning undefined): one key, the first.
   */
  keySources?: KeySourceFactory;
  /** OpenAI or any OpenAI-compatible server; `false` disables it even when the environment sets it. */
  openai?: OpenAIProviderOptions | false;
  anthropic?: AnthropicProviderOptions | false;
  /** Default provider: the first configured of openai, anthropic, else `local`. */
  defaultProvider?: string;
  /** AI SDK retries per provider call (default 2; tests use 0). */
  maxRetries?: number;
  /**
   * How long a provider may stay silent before the call fails with 504 `PROVIDER_TIMEOUT`:
   * `stepMs` per model call (default 600 000), `chunkMs` between stream chunks (default
   * 120 000). `false` waits forever (the caller's abort signal still ends a call).
   */
  providerTimeout?: ProviderTimeout | false;
  /** Default tool-loop steps when a request enables tools and gives no `maxSteps` (default 5). */
  maxSteps?: number;
  /** Redis URL or client for memory; default `REDIS_URL`. A client you pass is not closed by `close()`. */
  redis?: string | RuntimeRedis;
  /** Key prefix of the Redis memory store; default `conduit:memory:`. */
  redisKeyPrefix?: string;
  /**
   * Bounds of conversation memory: in process `maxSessions` (1 000, least recently written
   * evicted), `maxBytes` (64 MiB), `maxMessagesPerSession` (200) and `ttlMs` (24 h idle); in Redis
   * `maxMessagesPerSession` and `ttlMs` (7 days idle, refreshed on every write).
   */
  memoryLimits?: MemoryLimits;
  /**
   * A custom memory store (wins over `redis`), or `{store?, onUnavailable?}`: what a call with a
   * `sessionId` does while the store is down — `"degrade"` (default: answer without history, turn
   * not recorded, `memory: "unavailable"` in the result) or `"fail"` (503 `STORE_UNAVAILABLE`).
   */
  memory?: ConversationStore | MemoryOptions;
  /** Earlier messages sent as history per call (default 20). */
  historyLimit?: number;
  mcpServers?: Record<string, McpServerConfig>;
  mcp?: McpConnectionOptions;
  /** Register `current_time`, `calculator`, `text_stats` (default true). */
  builtinTools?: boolean;
  tools?: ToolDefinition[];
  logger?: Logger;
  /**
   * The usage ledger of every generate/stream/embed call (tokens, latency, cost): in memory, or
   * in Redis when `REDIS_URL` (or `usage.redis`) is set; `false` keeps none.
   */
  usage?: RuntimeUsageOptions | false;
  /**
   * Receives every generation's consumption when it ends (`generate`, `stream`), including
   * streams the client abandoned or the provider cut (`outcome`, `usageReported: false` when the
   * provider never sent its count). Aborted and failed ones are also logged at info.
   */
  onUsage?: (record: UsageRecord) => void;
  /**
   * Per-call token validation: calls carrying `authToken` are checked by this provider —
   * a config (`{type: "jwt", jwksUrl, ...}`, created on first use through the optional
   * `@conduit-ai/auth-providers`) or a provider you built. 5 s limit; a refusal raises
   * `InvalidTokenError` (401); the token's user overrides the call context.
   */
  auth?: RuntimeAuthOption;
  /** Receives the one-time `prompt` deprecation notice; default `process.emitWarning`. */
  onDeprecation?: (message: string) => void;
}
