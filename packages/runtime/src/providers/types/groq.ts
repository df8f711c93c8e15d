import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { bearerCredential, loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** Groq (`api.groq.com/openai/v1`) through `@ai-sdk/groq` (no embeddings). */
export const groq = defineProviderType({
  telemetryName: "groq",
  settings: (fields) => z.strictObject({ apiKeys: fields.apiKeys, baseURL: fields.baseURL, models: fields.models }),
  models: [
    "llama-3.3-70b-versatile",
    "llama-3.1-8b-instant",
    "openai/gpt-oss-120b",
    "openai/gpt-oss-20b",
    "moonshotai/kimi-k2-instruct-0905",
  ],
  embeds: false,
  embeddingModels: [],
  credentialHeader: bearerCredential,
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createGroq } = await loadProviderPackage("@ai-sdk/groq", () => import("@ai-sdk/groq"), context);
    const provider = createGroq({ apiKey: PLACEHOLDER_API_KEY, fetch: context.fetch, ...withBaseURL(settings.baseURL) });
    return { languageModel: (id) => provider.languageModel(id) };
  },
});
