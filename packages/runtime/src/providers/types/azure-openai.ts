import { z } from "zod";
import { PLACEHOLDER_API_KEY } from "../keyed-fetch.js";
import { loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/** The GA data-plane version of Azure OpenAI's deployment paths. */
export const DEFAULT_AZURE_API_VERSION = "2024-10-21";

/**
 * Azure OpenAI through `@ai-sdk/azure`, on the deployment paths
 * (`{baseURL}/deployments/{deployment}/chat/completions?api-version=…`, key in `api-key`): the
 * model id is the deployment's name. `resourceName` (→ `https://{resourceName}.openai.azure.com/openai`) or `baseURL`.
 */
export const azureOpenai = defineProviderType({
  telemetryName: "azure.ai.openai",
  settings: (fields) =>
    z
      .strictObject({
        resourceName: z
          .string()
          .regex(/^[a-zA-Z0-9][a-zA-Z0-9-]*$/, "expected an Azure resource name")
          .optional(),
        baseURL: fields.baseURL,
        apiKeys: fields.apiKeys,
        apiVersion: z.string().min(1, "expected a non-empty string").optional(),
        models: fields.models,
        embeddingModels: fields.embeddingModels,
      })
      .superRefine((settings, context) => {
        if ((settings.resourceName === undefined) === (settings.baseURL === undefined))
          context.addIssue({ code: "custom", path: ["resourceName"], message: "expected resourceName or baseURL (one of them)" });
      }),
  models: [],
  embeds: true,
  embeddingModels: [],
  credentialHeader: (key) => ["api-key", key],
  apiKeys: (settings) => settings.apiKeys,
  async create(settings, context) {
    const { createAzure } = await loadProviderPackage("@ai-sdk/azure", () => import("@ai-sdk/azure"), context);
    const provider = createAzure({
      apiKey: PLACEHOLDER_API_KEY,
      fetch: context.fetch,
      apiVersion: settings.apiVersion ?? DEFAULT_AZURE_API_VERSION,
      useDeploymentBasedUrls: true,
      ...(settings.resourceName === undefined ? {} : { resourceName: settings.resourceName }),
      ...withBaseURL(settings.baseURL),
    });
    return { languageModel: (id) => provider.chat(id), embeddingModel: (id) => provider.embeddingModel(id) };
  },
});
