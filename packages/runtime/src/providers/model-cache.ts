/**
 * One model instance per model id, made on first use. AI SDK model objects are stateless and
 * meant to be reused, but building one is not free: the OpenAI-compatible chat model, for
 * one, compiles its own zod schema for stream chunks in its constructor, and zod compiles a
 * parser for it on first use — ≈ 400 KB of heap and several ms of CPU when done per call.
 * Model ids are checked against the provider's configured list before a call, so the cache
 * holds at most that many entries.
 *
 * @example
 * const languageModel = cachedModels((id) => openai.chatModel(id));
 * languageModel("gpt-4o-mini") === languageModel("gpt-4o-mini"); // true
 */
export function cachedModels<Model>(create: (modelId: string) => Model): (modelId: string) => Model {
  const models = new Map<string, Model>();
  return (modelId) => {
    let model = models.get(modelId);
    if (model === undefined) {
      model = create(modelId);
      models.set(modelId, model);
    }
    return model;
  };
}
