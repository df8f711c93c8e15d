import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { bearerCredential, loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** DeepSeek (`api.deepseek.com`, Chat Completions with cache-hit usage) through `@ai-sdk/deepseek` (no embeddings). */
export const deepseek = defineProviderType({
  telemetryName: "deepseek",
  settings: (fields) => z.strictObject({ apiKeys: fields.apiKeys, baseURL: fields.baseURL, models: fields.models }),
  models: ["deepseek-chat", "deepseek-reasoner"],
  embeds: false,
  embeddingModels: [],
  credentialHeader: bearerCredential,
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createDeepSeek } = await loadProviderPackage("@ai-sdk/deepseek", () => import("@ai-sdk/deepseek"), context);
    const provider = createDeepSeek({ apiKey: PLACEHOLDER_API_KEY, fetch: context.fetch, ...withBaseURL(settings.baseURL) });
    return { languageModel: (id) => provider.languageModel(id) };
  },
});
