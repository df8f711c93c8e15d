import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { bearerCredential, loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** xAI's Grok models (`api.x.ai/v1`, Chat Completions) through `@ai-sdk/xai` (no embeddings). */
export const xai = defineProviderType({
  telemetryName: "x_ai",
  settings: (fields) => z.strictObject({ apiKeys: fields.apiKeys, baseURL: fields.baseURL, models: fields.models }),
  models: ["grok-4", "grok-4-fast-reasoning", "grok-4-fast-non-reasoning", "grok-3", "grok-3-mini", "grok-code-fast-1"],
  embeds: false,
  embeddingModels: [],
  credentialHeader: bearerCredential,
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createXai } = await loadProviderPackage("@ai-sdk/xai", () => import("@ai-sdk/xai"), context);
    const provider = createXai({ apiKey: PLACEHOLDER_API_KEY, fetch: context.fetch, ...withBaseURL(settings.baseURL) });
    return { languageModel: (id) => provider.chat(id) };
  },
});
