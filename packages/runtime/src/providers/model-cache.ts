import { BoundedCache } from "@conduit-ai/server-core/internal";

/**
 * Model ids held per provider at most. Ids are checked against the provider's configured list
 * before a call, so this is a backstop against an unbounded list, not an expected eviction.
 */
export const MAX_CACHED_MODELS = 256;

/**
 * One model instance per model id, made on first use. AI SDK model objects are stateless and
 * meant to be reused, but building one is not free: the OpenAI-compatible chat model, for
 * one, compiles its own zod schema for stream chunks in its constructor, and zod compiles a
 * parser for it on first use — ≈ 400 KB of heap and several ms of CPU when done per call.
 * Held in the core's `BoundedCache` (no expiry, at most `MAX_CACHED_MODELS` ids).
 *
 * @example
 * const languageModel = cachedModels((id) => openai.chatModel(id));
 * languageModel("gpt-4o-mini") === languageModel("gpt-4o-mini"); // true
 */
export function cachedModels<Model>(
  create: (modelId: string) => Model,
  maxEntries: number = MAX_CACHED_MODELS,
): (modelId: string) => Model {
  const models = new BoundedCache<Model>({ maxEntries });
  return (modelId) => {
    let model = models.get(modelId);
    if (model === undefined) {
      model = create(modelId);
      models.set(modelId, model);
    }
    return model;
  };
}
