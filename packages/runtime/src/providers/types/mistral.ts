import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { bearerCredential, loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** Mistral's La Plateforme (`api.mistral.ai/v1`) through `@ai-sdk/mistral`. */
export const mistral = defineProviderType({
  telemetryName: "mistral_ai",
  settings: (fields) =>
    z.strictObject({ apiKeys: fields.apiKeys, baseURL: fields.baseURL, models: fields.models, embeddingModels: fields.embeddingModels }),
  models: ["mistral-medium-latest", "mistral-large-latest", "mistral-small-latest", "codestral-latest", "magistral-medium-latest"],
  embeds: true,
  embeddingModels: ["mistral-embed"],
  credentialHeader: bearerCredential,
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createMistral } = await loadProviderPackage("@ai-sdk/mistral", () => import("@ai-sdk/mistral"), context);
    const provider = createMistral({ apiKey: PLACEHOLDER_API_KEY, fetch: context.fetch, ...withBaseURL(settings.baseURL) });
    return { languageModel: (id) => provider.languageModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
  },
});
