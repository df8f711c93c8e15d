import type { KeySource } from "@conduit-ai/server-core";
import type { EmbeddingModel, LanguageModel } from "ai";
import type { z } from "zod";
import type { ChatCompletionsEndpoint } from "./chat-completions-endpoint.js";
import type { SettingFields } from "./provider-settings.js";

/** The models a provider's package made, once loaded. */
export interface ProviderModels {
  languageModel(modelId: string): LanguageModel;
  embeddingModel?(modelId: string): EmbeddingModel;
}

/** What a provider type's `create` is given besides its settings. */
export interface ProviderContext {
  /** The provider's name in the config (`providers.<name>`). */
  name: string;
  /** Where its credential comes from, per request (a pool when `apiKeys` holds several). */
  keys: KeySource | undefined;
  /**
   * The `fetch` every request of the provider goes through: it sets the credential header from
   * `keys` per request (`credentialHeader`) and keeps the key out of error bodies.
   */
  fetch: typeof fetch;
  environment: Record<string, string | undefined>;
}

/**
 * One kind of upstream (`openai`, `google`, `bedrock`, …): its settings as a zod schema, its
 * OpenTelemetry name, the model ids it lists by default, and how its AI SDK package is loaded
 * and configured. One file per type under `providers/types/`, collected in `PROVIDER_TYPES`.
 */
export interface ProviderType<Settings extends Record<string, unknown> = Record<string, unknown>> {
  /** `gen_ai.provider.name` (OpenTelemetry's well-known value for the vendor). */
  telemetryName: string;
  /** The settings beside `type`, built from the shared fields (secrets, model lists). */
  settings(fields: SettingFields): z.ZodType<Settings>;
  /** Known text model ids, listed (the first is the default) when the config gives no `models`. */
  models: readonly string[];
  /** Whether the vendor's package makes embedding models (`embeddingModels` is a setting then). */
  embeds: boolean;
  /** Known embedding model ids (may be empty where ids are the customer's own, e.g. Azure deployments). */
  embeddingModels: readonly string[];
  /** How the credential is sent, for the keyed `fetch`; undefined when the package signs requests itself (Bedrock, Vertex). */
  credentialHeader?: (key: string) => [name: string, value: string];
  /** The API keys of the settings (a pool when several); undefined for types without API keys. */
  apiKeys?(settings: Settings): string[] | undefined;
  /** An OpenAI-compatible server whose streams Conduit reads itself (lighter than the AI SDK's pipeline), made at configuration. */
  chatCompletions?(settings: Settings, context: ProviderContext): ChatCompletionsEndpoint;
  /** The Gemini API server (its `baseURL`) whose streams Conduit reads itself (generation/gemini-stream-engine.ts), made at configuration. */
  geminiEndpoint?(settings: Settings, context: ProviderContext): ChatCompletionsEndpoint;
  /** Loads the package (an optional peer dependency) and makes the models. */
  create(settings: Settings, context: ProviderContext): Promise<ProviderModels>;
}

/** A provider type with its settings' type checked, stored in the registry without it. */
export function defineProviderType<Settings extends Record<string, unknown>>(type: ProviderType<Settings>): ProviderType {
  return type as unknown as ProviderType;
}
