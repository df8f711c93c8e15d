import { z } from "zod";
import { ChatCompletionsEndpoint } from "../chat-completions-endpoint.js";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** `@ai-sdk/google`'s default `baseURL`. */
const GEMINI_API_URL = "https://generativelanguage.googleapis.com/v1beta";

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
  // Streams are read by Conduit's own client (generation/gemini-stream-engine.ts); the request body is still the package's.
  geminiEndpoint: (settings, context) =>
    new ChatCompletionsEndpoint({
      baseURL: settings.baseURL ?? GEMINI_API_URL,
      path: "/",
      credentialHeader: (key) => ["x-goog-api-key", key],
      ...(context.keys ? { keys: context.keys } : {}),
    }),
  async create(settings, context) {
    const { createGoogleGenerativeAI } = await loadProviderPackage("@ai-sdk/google", () => import("@ai-sdk/google"), context);
    const provider = createGoogleGenerativeAI({ apiKey: PLACEHOLDER_API_KEY, fetch: context.fetch, ...withBaseURL(settings.baseURL) });
    return { languageModel: (id) => provider.languageModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
  },
});
