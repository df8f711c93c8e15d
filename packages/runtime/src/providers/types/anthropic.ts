import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** Anthropic's Messages API through `@ai-sdk/anthropic` (no embeddings). */
export const anthropic = defineProviderType({
  telemetryName: "anthropic",
  settings: (fields) =>
    z.strictObject({
      apiKeys: fields.apiKeys,
      baseURL: fields.baseURL,
      models: fields.models,
      /** An Admin API key (`sk-ant-admin…`): only `conduit reconcile` and `GET /admin/reconcile` use it, to read the usage and cost reports. */
      adminKey: fields.secret.optional(),
    }),
  models: ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5", "claude-opus-4-1", "claude-sonnet-4"],
  embeds: false,
  embeddingModels: [],
  credentialHeader: (key) => ["x-api-key", key],
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createAnthropic } = await loadProviderPackage("@ai-sdk/anthropic", () => import("@ai-sdk/anthropic"), context);
    const provider = createAnthropic({ apiKey: PLACEHOLDER_API_KEY, fetch: context.fetch, ...withBaseURL(settings.baseURL) });
    return { languageModel: (id) => provider.languageModel(id) };
  },
});
