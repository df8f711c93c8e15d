/**
 * One usage shape for every vendor and surface: what a call consumed, read from the vendor's own
 * fields, so the ledger, governance, the proxy's pool and the console price the same figures.
 *
 * - `input`: input tokens billed at the full input price (neither read from nor written to a cache);
 * - `cacheRead`, `cacheWrite5m`, `cacheWrite1h`: input tokens read from / written to the prompt cache;
 * - `output`: every output token, reasoning included (each vendor bills them so);
 * - `reasoning`: the part of `output` the model spent thinking (priced at `reasoning`);
 * - `serverTools`: uses of tools the vendor runs and bills per use (web search).
 */
export interface MeteredUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  reasoning: number;
  serverTools: { webSearch?: number };
}

/** A call that used nothing (the start of every sum). */
export function emptyUsage(): MeteredUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, serverTools: {} };
}

/** Every input token of a call, cached or not (what an OpenAI-shaped `prompt_tokens` reports). */
export function promptTokensOf(usage: MeteredUsage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite5m + usage.cacheWrite1h;
}

/** A count a vendor reported: a finite number ≥ 0, rounded; anything else is 0. */
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** The Anthropic Messages API's `usage` (JSON answer, `message_start` or cumulative `message_delta`). */
export interface AnthropicWireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  server_tool_use?: { web_search_requests?: number | null } | null;
  /**
   * Not Anthropic's: the reasoning share of `output_tokens` a runtime provider reported, carried on
   * Conduit's own Messages answers so a surface translating them for an OpenAI-shaped caller
   * reports it. Anthropic's answers never have it.
   */
  reasoning_tokens?: number | null;
}

/**
 * Anthropic's usage: `cache_creation` splits writes by TTL; an older answer with only
 * `cache_creation_input_tokens` wrote them all for 5 minutes (the only TTL there was).
 *
 * @example
 * usageFromAnthropic({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 900 }); // { input: 10, cacheRead: 900, ... }
 */
export function usageFromAnthropic(wire: AnthropicWireUsage | undefined): MeteredUsage {
  const usage = emptyUsage();
  if (!wire) return usage;
  usage.input = count(wire.input_tokens);
  usage.output = count(wire.output_tokens);
  usage.cacheRead = count(wire.cache_read_input_tokens);
  if (wire.cache_creation) {
    usage.cacheWrite5m = count(wire.cache_creation.ephemeral_5m_input_tokens);
    usage.cacheWrite1h = count(wire.cache_creation.ephemeral_1h_input_tokens);
  } else usage.cacheWrite5m = count(wire.cache_creation_input_tokens);
  usage.reasoning = Math.min(usage.output, count(wire.reasoning_tokens));
  const searches = count(wire.server_tool_use?.web_search_requests);
  if (searches > 0) usage.serverTools.webSearch = searches;
  return usage;
}

/** The same usage as an Anthropic answer reports it. */
export function anthropicUsageOf(
  usage: MeteredUsage,
): Required<Omit<AnthropicWireUsage, "server_tool_use" | "reasoning_tokens">> & AnthropicWireUsage {
  return {
    input_tokens: usage.input,
    output_tokens: usage.output,
    cache_read_input_tokens: usage.cacheRead,
    cache_creation_input_tokens: usage.cacheWrite5m + usage.cacheWrite1h,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite5m, ephemeral_1h_input_tokens: usage.cacheWrite1h },
    ...(usage.serverTools.webSearch ? { server_tool_use: { web_search_requests: usage.serverTools.webSearch } } : {}),
    ...(usage.reasoning ? { reasoning_tokens: usage.reasoning } : {}),
  };
}

/** OpenAI Chat Completions' `usage`; `prompt_tokens` counts the cached tokens, `completion_tokens` the reasoning ones. */
export interface OpenAIChatWireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number | null;
}

/**
 * OpenAI Chat Completions' usage (cached tokens taken out of `input`).
 *
 * @example
 * usageFromOpenAIChat({ prompt_tokens: 1000, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 800 } }); // input 200, cacheRead 800
 */
export function usageFromOpenAIChat(wire: OpenAIChatWireUsage | undefined): MeteredUsage {
  const usage = emptyUsage();
  if (!wire) return usage;
  const prompt = count(wire.prompt_tokens);
  usage.cacheRead = Math.min(prompt, count(wire.prompt_tokens_details?.cached_tokens ?? wire.prompt_cache_hit_tokens));
  usage.input = prompt - usage.cacheRead;
  usage.output = count(wire.completion_tokens);
  usage.reasoning = Math.min(usage.output, count(wire.completion_tokens_details?.reasoning_tokens));
  return usage;
}

/** The same usage as a Chat Completions answer reports it. */
export function openAIChatUsageOf(usage: MeteredUsage) {
  const prompt = promptTokensOf(usage);
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
    completion_tokens_details: { reasoning_tokens: usage.reasoning },
  };
}

/** The Responses API's `usage` (codex streams report the same). */
export interface OpenAIResponsesWireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  total_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** The Responses API's usage (cached tokens taken out of `input`). */
export function usageFromOpenAIResponses(wire: OpenAIResponsesWireUsage | undefined): MeteredUsage {
  return usageFromOpenAIChat(
    wire && {
      prompt_tokens: wire.input_tokens,
      completion_tokens: wire.output_tokens,
      prompt_tokens_details: wire.input_tokens_details,
      completion_tokens_details: wire.output_tokens_details,
    },
  );
}

/** The same usage as a Responses answer reports it. */
export function openAIResponsesUsageOf(usage: MeteredUsage) {
  const input = promptTokensOf(usage);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: input + usage.output,
  };
}

/** Gemini's `usageMetadata`: `promptTokenCount` counts the cached tokens; thoughts are billed as output but counted apart. */
export interface GeminiWireUsage {
  promptTokenCount?: number | null;
  candidatesTokenCount?: number | null;
  cachedContentTokenCount?: number | null;
  thoughtsTokenCount?: number | null;
}

/** Gemini's usage (thoughts are part of `output` here, as every other vendor counts them). */
export function usageFromGemini(wire: GeminiWireUsage | undefined): MeteredUsage {
  const usage = emptyUsage();
  if (!wire) return usage;
  const prompt = count(wire.promptTokenCount);
  usage.cacheRead = Math.min(prompt, count(wire.cachedContentTokenCount));
  usage.input = prompt - usage.cacheRead;
  usage.reasoning = count(wire.thoughtsTokenCount);
  usage.output = count(wire.candidatesTokenCount) + usage.reasoning;
  return usage;
}

/** Bedrock Converse's `usage`: `inputTokens` excludes the cache reads and writes, as Anthropic's does. */
export interface BedrockWireUsage {
  inputTokens?: number | null;
  outputTokens?: number | null;
  cacheReadInputTokens?: number | null;
  cacheWriteInputTokens?: number | null;
}

/** Bedrock Converse's usage (its cache writes are 5-minute ones: the only TTL Bedrock reports). */
export function usageFromBedrock(wire: BedrockWireUsage | undefined): MeteredUsage {
  const usage = emptyUsage();
  if (!wire) return usage;
  usage.input = count(wire.inputTokens);
  usage.output = count(wire.outputTokens);
  usage.cacheRead = count(wire.cacheReadInputTokens);
  usage.cacheWrite5m = count(wire.cacheWriteInputTokens);
  return usage;
}

/** A runtime generation's token counts (the `TokenUsage` of the `Runtime` contract). */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

/** A runtime generation's `TokenUsage` (cache reads and writes inside `inputTokens`, reasoning inside `outputTokens`). */
export function usageFromTokenUsage(tokens: TokenCounts | undefined): MeteredUsage {
  const usage = emptyUsage();
  if (!tokens) return usage;
  usage.cacheRead = count(tokens.cacheReadTokens);
  usage.cacheWrite5m = count(tokens.cacheWriteTokens);
  usage.input = Math.max(0, count(tokens.inputTokens) - usage.cacheRead - usage.cacheWrite5m);
  usage.output = count(tokens.outputTokens);
  usage.reasoning = Math.min(usage.output, count(tokens.reasoningTokens));
  return usage;
}

/** The same usage as a runtime `TokenUsage` (details only when there are some). */
export function tokenUsageOf(usage: MeteredUsage): TokenCounts {
  const input = promptTokensOf(usage);
  const cacheWrite = usage.cacheWrite5m + usage.cacheWrite1h;
  return {
    inputTokens: input,
    outputTokens: usage.output,
    totalTokens: input + usage.output,
    ...(usage.cacheRead ? { cacheReadTokens: usage.cacheRead } : {}),
    ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
    ...(usage.reasoning ? { reasoningTokens: usage.reasoning } : {}),
  };
}
