import { z } from "zod";
import { loadProviderPackage } from "../provider-package.js";
import { defineProviderType } from "../provider-type.js";
import { type ServiceAccount, readServiceAccount, serviceAccountTokens } from "../service-account-token.js";

/**
 * Vertex AI through `@ai-sdk/google-vertex`: Gemini models, and Anthropic's models on Vertex
 * (ids starting `claude-`, through its `/anthropic` entry). Authenticated as a service account
 * (`credentials`: its key file, else `GOOGLE_APPLICATION_CREDENTIALS`). `baseURL` replaces the
 * endpoint's origin (`https://{location}-aiplatform.googleapis.com`), e.g. a private endpoint.
 */
export const vertex = defineProviderType({
  telemetryName: "gcp.vertex_ai",
  settings: (fields) =>
    z.strictObject({
      project: z.string({ error: "expected a Google Cloud project id" }).min(1, "expected a Google Cloud project id"),
      location: z
        .string({ error: "expected a location such as us-central1" })
        .regex(/^[a-z0-9-]+$/, "expected a location such as us-central1"),
      credentials: z
        .string({ error: "expected the path of a service-account key file" })
        .optional()
        .transform((path, context): ServiceAccount => {
          const file = path ?? fields.environment.GOOGLE_APPLICATION_CREDENTIALS;
          if (file === undefined || file === "") {
            context.addIssue({
              code: "custom",
              message: "expected the path of a service-account key file (or GOOGLE_APPLICATION_CREDENTIALS)",
            });
            return z.NEVER;
          }
          try {
            return readServiceAccount(file);
          } catch (error) {
            context.addIssue({ code: "custom", message: (error as Error).message });
            return z.NEVER;
          }
        }),
      baseURL: fields.baseURL,
      models: fields.models,
      embeddingModels: fields.embeddingModels,
    }),
  models: ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite", "claude-sonnet-4-5@20250929", "claude-haiku-4-5@20251001"],
  embeds: true,
  embeddingModels: ["gemini-embedding-001", "text-embedding-005"],
  async create(settings, context) {
    const [{ createVertex }, { createVertexAnthropic }] = await Promise.all([
      loadProviderPackage("@ai-sdk/google-vertex", () => import("@ai-sdk/google-vertex"), context),
      loadProviderPackage("@ai-sdk/google-vertex", () => import("@ai-sdk/google-vertex/anthropic"), context),
    ]);
    const token = serviceAccountTokens(settings.credentials, context.fetch);
    const { project, location } = settings;
    const origin = settings.baseURL?.replace(/\/+$/, "");
    const gemini = createVertex({
      project,
      location,
      fetch: context.fetch,
      // The package's own auth would ask google-auth-library; this client hands it our token instead.
      googleAuthOptions: { authClient: { getAccessToken: async () => ({ token: await token() }) } as never },
      ...(origin ? { baseURL: `${origin}/v1beta1/projects/${project}/locations/${location}/publishers/google` } : {}),
    });
    const claude = createVertexAnthropic({
      project,
      location,
      fetch: context.fetch,
      generateAuthToken: token,
      ...(origin ? { baseURL: `${origin}/v1/projects/${project}/locations/${location}/publishers/anthropic/models` } : {}),
    });
    return {
      languageModel: (id) => (id.startsWith("claude-") ? claude.languageModel(id) : gemini.languageModel(id)),
      embeddingModel: (id) => gemini.embeddingModel(id),
    };
  },
});
