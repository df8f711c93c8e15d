import { z } from "zod";
import { loadProviderPackage, withBaseURL } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";

/**
 * Amazon Bedrock's Converse API (every Bedrock chat model) through `@ai-sdk/amazon-bedrock`,
 * requests signed with SigV4 by the package: `accessKeyId` + `secretAccessKey` (+ `sessionToken`),
 * else `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`; `region` else `AWS_REGION`.
 */
export const bedrock = defineProviderType({
  telemetryName: "aws.bedrock",
  settings: (fields) => {
    const { environment } = fields;
    return z
      .strictObject({
        region: z
          .string({ error: "expected an AWS region such as us-east-1" })
          .regex(/^[a-z0-9-]+$/, "expected an AWS region such as us-east-1")
          .optional()
          .transform((region, context) => {
            const chosen = region ?? environment.AWS_REGION;
            if (chosen === undefined || chosen === "") {
              context.addIssue({ code: "custom", message: "expected an AWS region such as us-east-1 (or AWS_REGION)" });
              return z.NEVER;
            }
            return chosen;
          }),
        accessKeyId: fields.secret.optional(),
        secretAccessKey: fields.secret.optional(),
        sessionToken: fields.secret.optional(),
        baseURL: fields.baseURL,
        models: fields.models,
        embeddingModels: fields.embeddingModels,
      })
      .transform((settings, context) => {
        const fromSettings = settings.accessKeyId !== undefined || settings.secretAccessKey !== undefined;
        const accessKeyId = fromSettings ? settings.accessKeyId : environment.AWS_ACCESS_KEY_ID;
        const secretAccessKey = fromSettings ? settings.secretAccessKey : environment.AWS_SECRET_ACCESS_KEY;
        const sessionToken = fromSettings ? settings.sessionToken : (settings.sessionToken ?? environment.AWS_SESSION_TOKEN);
        if (!accessKeyId || !secretAccessKey) {
          context.addIssue({
            code: "custom",
            path: [accessKeyId ? "secretAccessKey" : "accessKeyId"],
            message: "expected accessKeyId and secretAccessKey (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)",
          });
          return z.NEVER;
        }
        return { ...settings, accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
      });
  },
  models: [
    "anthropic.claude-sonnet-4-5-20250929-v1:0",
    "anthropic.claude-haiku-4-5-20251001-v1:0",
    "amazon.nova-pro-v1:0",
    "amazon.nova-lite-v1:0",
    "amazon.nova-micro-v1:0",
    "meta.llama3-3-70b-instruct-v1:0",
    "mistral.mistral-large-2407-v1:0",
  ],
  embeds: true,
  embeddingModels: ["amazon.titan-embed-text-v2:0", "cohere.embed-english-v3"],
  async create(settings, context) {
    const { createAmazonBedrock } = await loadProviderPackage("@ai-sdk/amazon-bedrock", () => import("@ai-sdk/amazon-bedrock"), context);
    const provider = createAmazonBedrock({
      region: settings.region,
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      ...(settings.sessionToken ? { sessionToken: settings.sessionToken } : {}),
      fetch: context.fetch,
      ...withBaseURL(settings.baseURL),
    });
    return { languageModel: (id) => provider.languageModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
  },
});
