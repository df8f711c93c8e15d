import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { bearerCredential, loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** OpenAI's own API (the Responses API through `@ai-sdk/openai`); `baseURL` for a proxy in front of it. */
export const openai = defineProviderType({
  telemetryName: "openai",
  settings: (fields) =>
    z.strictObject({
      apiKeys: fields.apiKeys,
      baseURL: fields.baseURL,
      organization: z.string().min(1, "expected a non-empty string").optional(),
      /** An admin key: only `conduit reconcile` and `GET /admin/reconcile` use it, to read the organization's usage and costs. */
      adminKey: fields.secret.optional(),
      models: fields.models,
      embeddingModels: fields.embeddingModels,
    }),
  models: ["gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1", "gpt-4.1-nano", "gpt-5", "gpt-5-mini", "gpt-5-nano", "o4-mini"],
  embeds: true,
  embeddingModels: ["text-embedding-3-small", "text-embedding-3-large"],
  credentialHeader: bearerCredential,
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createOpenAI } = await loadProviderPackage("@ai-sdk/openai", () => import("@ai-sdk/openai"), context);
    const provider = createOpenAI({
      apiKey: PLACEHOLDER_API_KEY,
      fetch: context.fetch,
      ...withBaseURL(settings.baseURL),
      ...(settings.organization === undefined ? {} : { organization: settings.organization }),
    });
    return { languageModel: (id) => provider.languageModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
  },
});
