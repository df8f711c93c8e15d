import type { ProviderInfo } from "@conduit-ai/server-core";
import type { EmbeddingModel, LanguageModel } from "ai";
import type { ChatCompletionsEndpoint } from "./chat-completions-endpoint.js";
import { modelNotAvailable, modelRequired, providerNotConfigured } from "../runtime-errors.js";
import { LOCAL_EMBEDDING_MODEL } from "./local-embeddings.js";

export const LOCAL_PROVIDER = "local";
export const LOCAL_TEXT_MODEL = "echo";

/** One provider the runtime can call; the local provider has no AI SDK models. */
export interface ConfiguredProvider {
  /** Its name in the config (`providers.<name>`), the `<provider>` of `<provider>/<model>`. */
  name: string;
  /** Its type (`openai`, `google`, …; `local` for the offline provider). */
  type: string;
  /** OpenTelemetry's `gen_ai.provider.name` for its vendor (`gcp.gemini`, `aws.bedrock`, …). */
  telemetryName: string;
  /** Text models listed; the first is the default. */
  models: string[];
  /** Embedding models listed; the first is the default. */
  embeddingModels: string[];
  /** Any text model id is accepted, not only the listed ones (no `models` setting). */
  acceptsAnyModel?: boolean;
  acceptsAnyEmbeddingModel?: boolean;
  /** The model of an id, once the provider's package is loaded. */
  languageModel?: (modelId: string) => Promise<LanguageModel>;
  embeddingModel?: (modelId: string) => Promise<EmbeddingModel>;
  /** An OpenAI-compatible server whose streams Conduit reads itself (lighter than the AI SDK's pipeline). */
  chatCompletions?: ChatCompletionsEndpoint;
  /** The Gemini API server whose streams Conduit reads itself (generation/gemini-stream-engine.ts). */
  gemini?: ChatCompletionsEndpoint;
  /** Loads the provider's package now (`MissingDependencyError` when it is not installed). */
  load?: () => Promise<void>;
}

export interface ResolvedModel {
  provider: ConfiguredProvider;
  model: string;
}

export const localProvider: ConfiguredProvider = {
  name: LOCAL_PROVIDER,
  type: LOCAL_PROVIDER,
  telemetryName: LOCAL_PROVIDER,
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

  /**
   * The provider and model of a request: `provider` + `model`, or `model: "<provider>/<model>"`
   * when `provider` is absent and the part before the first `/` names a configured provider (so
   * `groq/openai/gpt-oss-20b` is Groq's `openai/gpt-oss-20b`); otherwise the default provider.
   */
  resolve(purpose: "text" | "embedding", providerName?: string, model?: string): ResolvedModel {
    let named = providerName;
    let requested = model;
    const slash = model?.indexOf("/") ?? -1;
    if (named === undefined && model !== undefined && slash > 0 && this.#providers.has(model.slice(0, slash))) {
      named = model.slice(0, slash);
      requested = model.slice(slash + 1);
    }
    const name = named ?? this.#defaultFor(purpose);
    const provider = this.#providers.get(name);
    const supports = (candidate: ConfiguredProvider) =>
      purpose === "text"
        ? candidate.models.length > 0 || candidate.acceptsAnyModel === true
        : candidate.embeddingModels.length > 0 || candidate.acceptsAnyEmbeddingModel === true;
    if (provider === undefined || !supports(provider)) {
      throw providerNotConfigured(
        name,
        [...this.#providers.values()].filter(supports).map((candidate) => candidate.name),
      );
    }
    const models = purpose === "text" ? provider.models : provider.embeddingModels;
    const open = purpose === "text" ? provider.acceptsAnyModel : provider.acceptsAnyEmbeddingModel;
    const chosen = requested ?? models[0];
    if (chosen === undefined) throw modelRequired(name);
    if (!models.includes(chosen) && !(open === true && chosen !== "")) throw modelNotAvailable(name, chosen, models);
    return { provider, model: chosen };
  }

  /** Loads every provider's package (the server's start awaits it: a missing one stops the start). */
  async load(): Promise<void> {
    await Promise.all([...this.#providers.values()].map((provider) => provider.load?.()));
  }

  /** Embeddings fall back to the local provider when the default provider has none (Anthropic). */
  #defaultFor(purpose: "text" | "embedding"): string {
    const preferred = this.#providers.get(this.defaultProvider);
    if (purpose === "embedding" && preferred !== undefined && preferred.embeddingModels.length === 0) return LOCAL_PROVIDER;
    return this.defaultProvider;
  }

  /** Releases the providers' idle connections. */
  close(): void {
    for (const provider of this.#providers.values()) {
      provider.chatCompletions?.close();
      provider.gemini?.close();
    }
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
