import type { KeySource } from "@conduit-ai/server-core";
import { keyedFetch } from "./keyed-fetch.js";
import { cachedModels } from "./model-cache.js";
import type { Environment } from "./provider-settings.js";
import type { ProviderContext, ProviderModels } from "./provider-type.js";
import type { ConfiguredProvider } from "./provider-registry.js";
import type { ProviderEntry } from "./providers-config.js";
import { singleKeySource } from "./single-key-source.js";
import { PROVIDER_TYPES } from "./types/index.js";

/** A provider's API keys, for whoever supplies its `KeySource`. */
export interface KeySourceRequest {
  provider: string;
  type: string;
  keys: readonly string[];
}

/**
 * Makes the `KeySource` of a provider with API keys. Several keys are a pool, served by the
 * server's one pool implementation when it passes this; undefined leaves the runtime's default.
 */
export type KeySourceFactory = (request: KeySourceRequest) => KeySource | undefined;

export interface ProviderSetup {
  environment: Environment;
  keySources?: KeySourceFactory | undefined;
  warn: (message: string) => void;
}

function keySourceOf(entry: ProviderEntry, keys: string[] | undefined, setup: ProviderSetup): KeySource | undefined {
  if (keys === undefined || keys.length === 0) return undefined;
  const supplied = setup.keySources?.({ provider: entry.name, type: entry.type, keys });
  if (supplied !== undefined) return supplied;
  if (keys.length > 1)
    setup.warn(
      `providers.${entry.name}.apiKeys holds ${keys.length} keys, but no key pool is attached to this runtime (RuntimeOptions.keySources): every request sends the first key`,
    );
  return singleKeySource(keys[0] as string);
}

/**
 * A configured provider from its checked entry. Its AI SDK package is imported on first use
 * (or by `load()`, which the server awaits at start so a missing package stops it there), and
 * each model is made once per id. Without a `models` setting any model id is accepted.
 */
export function configureProvider(entry: ProviderEntry, setup: ProviderSetup): ConfiguredProvider {
  const type = PROVIDER_TYPES[entry.type];
  const settings = entry.settings as Record<string, unknown> & { models?: string[]; embeddingModels?: string[] };
  const keys = keySourceOf(entry, type.apiKeys?.(settings), setup);
  const context: ProviderContext = {
    name: entry.name,
    keys,
    fetch: keyedFetch(keys, type.credentialHeader),
    environment: setup.environment,
  };
  let loading: Promise<ProviderModels> | undefined;
  const load = () => {
    loading ??= type.create(settings, context);
    return loading;
  };
  const chatCompletions = type.chatCompletions?.(settings, context);
  const gemini = type.geminiEndpoint?.(settings, context);
  return {
    name: entry.name,
    type: entry.type,
    telemetryName: type.telemetryName,
    models: [...(settings.models ?? entry.defaultModels ?? type.models)],
    embeddingModels: type.embeds ? [...(settings.embeddingModels ?? type.embeddingModels)] : [],
    acceptsAnyModel: settings.models === undefined,
    acceptsAnyEmbeddingModel: type.embeds && settings.embeddingModels === undefined,
    languageModel: cachedModels(async (id) => (await load()).languageModel(id)),
    ...(type.embeds
      ? {
          embeddingModel: cachedModels(async (id) => {
            const models = await load();
            if (models.embeddingModel === undefined) throw new Error(`Provider "${entry.name}" has no embedding models`);
            return models.embeddingModel(id);
          }),
        }
      : {}),
    ...(chatCompletions ? { chatCompletions } : {}),
    ...(gemini ? { gemini } : {}),
    load: async () => {
      await load();
    },
  };
}
