import { z } from "zod";
import { ChatCompletionsEndpoint } from "../chat-completions-endpoint.js";
import { bearerCredential, loadProviderPackage } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/**
 * Any server speaking OpenAI's Chat Completions (vLLM, Ollama, LM Studio, llama.cpp, Together,
 * Fireworks, OpenRouter): `baseURL` required, a key optional. Streams are read by Conduit's own
 * client (`ChatCompletionsEndpoint`), the rest through `@ai-sdk/openai-compatible`.
 */
export const openaiCompatible = defineProviderType({
  telemetryName: "openai",
  settings: (fields) =>
    z.strictObject({
      baseURL: z.url({ error: "expected an http(s) URL", protocol: /^https?$/ }),
      apiKeys: fields.apiKeys.optional(),
      headers: z.record(z.string(), fields.secret, { error: "expected an object of header values" }).optional(),
      models: fields.models,
      embeddingModels: fields.embeddingModels,
    }),
  models: [],
  embeds: true,
  embeddingModels: [],
  credentialHeader: bearerCredential,
  apiKeys: (settings) => settings.apiKeys,
  chatCompletions: (settings, context) =>
    new ChatCompletionsEndpoint({
      baseURL: settings.baseURL,
      ...(context.keys ? { keys: context.keys } : {}),
      ...(settings.headers ? { headers: settings.headers } : {}),
    }),
  async create(settings, context) {
    const { createOpenAICompatible } = await loadProviderPackage(
      "@ai-sdk/openai-compatible",
      () => import("@ai-sdk/openai-compatible"),
      context,
    );
    // Structured outputs on: OpenAI-compatible servers (vLLM, Ollama, LM Studio) take `json_schema`, so a caller's schema is enforced upstream.
    const provider = createOpenAICompatible({
      name: context.name,
      baseURL: settings.baseURL,
      fetch: context.fetch,
      includeUsage: true,
      supportsStructuredOutputs: true,
      ...(settings.headers ? { headers: settings.headers } : {}),
    });
    return { languageModel: (id) => provider.chatModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
  },
});
