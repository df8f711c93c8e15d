import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ChatCompletionsEndpoint } from "./chat-completions-endpoint.js";
import { cachedModels } from "./model-cache.js";
import type { ConfiguredProvider } from "./provider-registry.js";

export interface OpenAIProviderOptions {
  apiKey?: string;
  /** Any OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp); a key is optional then. */
  baseURL?: string;
  models?: string[];
  embeddingModels?: string[];
}

export interface AnthropicProviderOptions {
  apiKey?: string;
  baseURL?: string;
  models?: string[];
}

export type Environment = Record<string, string | undefined>;

export const DEFAULT_OPENAI_MODELS = ["gpt-4o-mini", "gpt-4o", "gpt-4.1-mini"];
export const DEFAULT_OPENAI_EMBEDDING_MODELS = ["text-embedding-3-small"];
export const DEFAULT_ANTHROPIC_MODELS = ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1"];

function commaList(value: string | undefined): string[] | undefined {
  const items = value
    ?.split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items && items.length > 0 ? items : undefined;
}

/**
 * The OpenAI provider from options, else `OPENAI_API_KEY`/`OPENAI_BASE_URL`/`OPENAI_MODELS`/
 * `OPENAI_EMBEDDING_MODELS`. With a base URL it speaks Chat Completions through the
 * OpenAI-compatible provider (what local servers implement); without one, the official OpenAI provider.
 */
export function openAIProvider(options: OpenAIProviderOptions | undefined, environment: Environment): ConfiguredProvider | undefined {
  const apiKey = options?.apiKey ?? environment.OPENAI_API_KEY;
  const baseURL = options?.baseURL ?? environment.OPENAI_BASE_URL;
  if (!apiKey && !baseURL) return undefined;
  const models = options?.models ?? commaList(environment.OPENAI_MODELS) ?? DEFAULT_OPENAI_MODELS;
  const embeddingModels = options?.embeddingModels ?? commaList(environment.OPENAI_EMBEDDING_MODELS) ?? DEFAULT_OPENAI_EMBEDDING_MODELS;
  if (baseURL) {
    // Structured outputs on: OpenAI-compatible servers (vLLM, Ollama, LM Studio) take `json_schema`, so a caller's schema is enforced upstream.
    const compatible = createOpenAICompatible({
      name: "openai",
      baseURL,
      apiKey,
      includeUsage: true,
      supportsStructuredOutputs: true,
    });
    return {
      name: "openai",
      models,
      embeddingModels,
      languageModel: cachedModels((id) => compatible.chatModel(id)),
      embeddingModel: cachedModels((id) => compatible.embeddingModel(id)),
      // Streams are read by Conduit's own client: a fraction of the AI SDK pipeline's memory per stream.
      chatCompletions: new ChatCompletionsEndpoint({ baseURL, ...(apiKey ? { apiKey } : {}) }),
    };
  }
  const openai = createOpenAI({ apiKey });
  return {
    name: "openai",
    models,
    embeddingModels,
    languageModel: cachedModels((id) => openai.languageModel(id)),
    embeddingModel: cachedModels((id) => openai.embeddingModel(id)),
  };
}

/** The Anthropic provider from options, else `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`/`ANTHROPIC_MODELS`. */
export function anthropicProvider(options: AnthropicProviderOptions | undefined, environment: Environment): ConfiguredProvider | undefined {
  const apiKey = options?.apiKey ?? environment.ANTHROPIC_API_KEY;
  const baseURL = options?.baseURL ?? environment.ANTHROPIC_BASE_URL;
  if (!apiKey) return undefined;
  const models = options?.models ?? commaList(environment.ANTHROPIC_MODELS) ?? DEFAULT_ANTHROPIC_MODELS;
  const anthropic = createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}) });
  return { name: "anthropic", models, embeddingModels: [], languageModel: cachedModels((id) => anthropic.languageModel(id)) };
}
