import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { bearerCredential, loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** Cohere's v2 API (`api.cohere.com/v2`: chat, embed) through `@ai-sdk/cohere`. */
export const cohere = defineProviderType({
  telemetryName: "cohere",
  settings: (fields) =>
    z.strictObject({ apiKeys: fields.apiKeys, baseURL: fields.baseURL, models: fields.models, embeddingModels: fields.embeddingModels }),
  models: ["command-a-03-2025", "command-r-plus-08-2024", "command-r-08-2024", "command-r7b-12-2024"],
  embeds: true,
  embeddingModels: ["embed-v4.0", "embed-english-v3.0", "embed-multilingual-v3.0"],
  credentialHeader: bearerCredential,
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createCohere } = await loadProviderPackage("@ai-sdk/cohere", () => import("@ai-sdk/cohere"), context);
    const provider = createCohere({ apiKey: PLACEHOLDER_API_KEY, fetch: context.fetch, ...withBaseURL(settings.baseURL) });
    return { languageModel: (id) => provider.languageModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
  },
});
