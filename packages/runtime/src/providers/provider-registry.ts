import type { ProviderInfo } from "@conduit-ai/server-core";
import type { EmbeddingModel, LanguageModel } from "ai";
import type { ChatCompletionsEndpoint } from "./chat-completions-endpoint.js";
import { modelNotAvailable, providerNotConfigured } from "../runtime-errors.js";
import { LOCAL_EMBEDDING_MODEL } from "./local-embeddings.js";

export const LOCAL_PROVIDER = "local";
export const LOCAL_TEXT_MODEL = "echo";

/** One provider the runtime can call; the local provider has no AI SDK models. */
export interface ConfiguredProvider {
  name: string;
  /** Text models; the first is the default. */
  models: string[];
  /** Embedding models; the first is the default. */
  embeddingModels: string[];
  languageModel?: (modelId: string) => LanguageModel;
  embeddingModel?: (modelId: string) => EmbeddingModel;
  /** An OpenAI-compatible server whose streams Conduit reads itself (lighter than the AI SDK's pipeline). */
  chatCompletions?: ChatCompletionsEndpoint;
}

export interface ResolvedModel {
  provider: ConfiguredProvider;
  model: string;
}

export const localProvider: ConfiguredProvider = {
  name: LOCAL_PROVIDER,
  models: [LOCAL_TEXT_MODEL],
  embeddingModels: [LOCAL_EMBEDDING_MODEL],
};

/**
 * The configured providers and the default one. Resolution turns a request's optional
 * `provider`/`model` into a concrete pair or a 400 listing what is available.
 */
export class ProviderRegistry {
  readonly #providers = new Map<string, ConfiguredProvider>();
  readonly defaultProvider: string;

  constructor(providers: ConfiguredProvider[], defaultProvider?: string) {
    for (const provider of [localProvider, ...providers]) this.#providers.set(provider.name, provider);
    const fallback = providers[0]?.name ?? LOCAL_PROVIDER;
    if (defaultProvider !== undefined && !this.#providers.has(defaultProvider)) {
      throw providerNotConfigured(defaultProvider, this.names());
    }
    this.defaultProvider = defaultProvider ?? fallback;
  }

  names(): string[] {
    return [...this.#providers.keys()];
  }

  resolve(purpose: "text" | "embedding", providerName?: string, model?: string): ResolvedModel {
    const name = providerName ?? this.#defaultFor(purpose);
    const provider = this.#providers.get(name);
    const supports = (candidate: ConfiguredProvider) => (purpose === "text" ? candidate.models : candidate.embeddingModels).length > 0;
    if (provider === undefined || !supports(provider)) {
      throw providerNotConfigured(
        name,
        [...this.#providers.values()].filter(supports).map((candidate) => candidate.name),
      );
    }
    const models = purpose === "text" ? provider.models : provider.embeddingModels;
    const chosen = model ?? models[0] ?? "";
    if (!models.includes(chosen)) throw modelNotAvailable(name, chosen, models);
    return { provider, model: chosen };
  }

  /** Embeddings fall back to the local provider when the default provider has none (Anthropic). */
  #defaultFor(purpose: "text" | "embedding"): string {
    const preferred = this.#providers.get(this.defaultProvider);
    if (purpose === "embedding" && preferred !== undefined && preferred.embeddingModels.length === 0) return LOCAL_PROVIDER;
    return this.defaultProvider;
  }

  /** Releases the providers' idle connections. */
  close(): void {
    for (const provider of this.#providers.values()) provider.chatCompletions?.close();
  }

  list(): ProviderInfo[] {
    return [...this.#providers.values()].map((provider) => ({
      name: provider.name,
      models: [...provider.models, ...provider.embeddingModels],
      available: true,
      default: provider.name === this.defaultProvider,
    }));
  }
}
