import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** The Gemini API (`generativelanguage.googleapis.com`, key in `x-goog-api-key`) through `@ai-sdk/google`. */
export const google = defineProviderType({
  telemetryName: "gcp.gemini",
  settings: (fields) =>
    z.strictObject({ apiKeys: fields.apiKeys, baseURL: fields.baseURL, models: fields.models, embeddingModels: fields.embeddingModels }),
  models: ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite", "gemini-2.0-flash"],
  embeds: true,
  embeddingModels: ["gemini-embedding-001", "text-embedding-004"],
  credentialHeader: (key) => ["x-goog-api-key", key],
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createGoogleGenerativeAI } = await loadProviderPackage("@ai-sdk/google", () => import("@ai-sdk/google"), context);
    const provider = createGoogleGenerativeAI({ apiKey: PLACEHOLDER_API_KEY, fetch: context.fetch, ...withBaseURL(settings.baseURL) });
    return { languageModel: (id) => provider.languageModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
  },
});
