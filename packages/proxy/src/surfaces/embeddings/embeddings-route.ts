import {
  type RouteDefinition,
  type Runtime,
  ServerAdapterError,
  type ServerContext,
  callContextOf,
  rawResponse,
} from "@conduit-ai/server-core";
import { estimateTokens } from "@conduit-ai/server-core/internal";
import type { Admitted, ClientAdmission } from "../../admission/client-admission.js";
import { z } from "zod";
import { readJsonBody } from "../openai-request.js";
import { OpenAIWireError, invalidRequest, invalidRequestFromIssues } from "../../wire/openai-chat/openai-wire-error.js";
import { fromRuntimeError } from "../openai-failure.js";
import { clientKeyRefusal } from "../../admission/client-auth.js";

const MAX_INPUTS = 2048;

/** An admission refusal on its way past the route's own error conversion, to the group's error writer. */
class PassThrough {
  constructor(readonly error: ServerAdapterError) {}
}

export const embeddingsRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1).max(MAX_INPUTS), z.array(z.number()), z.array(z.array(z.number()))]),
  encoding_format: z.enum(["float", "base64"]).nullish(),
  dimensions: z.number().int().positive().nullish(),
  user: z.string().nullish(),
});

export interface EmbeddingsRouteOptions {
  isClientAllowed: (ctx: ServerContext) => boolean;
  runtime: Runtime;
  /** The proxy's admission (client keys or its gate, then the per-credential limit); replaces `isClientAllowed`. */
  admission?: ClientAdmission;
}

/** Float32 little-endian bytes, base64: what the `openai` SDK decodes for `encoding_format: "base64"`. */
function base64Of(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [index, value] of vector.entries()) bytes.writeFloatLE(value, index * 4);
  return bytes.toString("base64");
}

/** A rough count for `usage` (the runtime reports none for embeddings): about four characters a token. */
const estimateTextsTokens = (texts: readonly string[]) => texts.reduce((sum, text) => sum + estimateTokens(text), 0);

/**
 * Providers list their text models only: a bare provider name takes its default embedding model,
 * `<provider>/<model>` names one (the runtime refuses a model the provider lacks with a 400).
 */
async function resolveEmbeddingModel(runtime: Runtime, model: string): Promise<{ provider: string; model?: string }> {
  const providers = (await runtime.listProviders()).filter((provider) => provider.available);
  const slash = model.indexOf("/");
  const named = providers.find((provider) => provider.name === (slash > 0 ? model.slice(0, slash) : model));
  if (named) return slash > 0 ? { provider: named.name, model: model.slice(slash + 1) } : { provider: named.name };
  const listing = providers.find((provider) => provider.models.includes(model));
  if (listing) return { provider: listing.name, model };
  throw new OpenAIWireError(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    "invalid_request_error",
    "model",
    "model_not_found",
  );
}

/**
 * `POST /v1/embeddings`: OpenAI's embeddings shape over the runtime's `embedMany` (string or
 * array input, `encoding_format` `float`/`base64`; `dimensions` only where the model answers
 * with that many, else a 400 naming it). Token-array input is refused: no tokenizer is assumed.
 *
 * @example
 * adapter.registerRoute(createEmbeddingsRoute({ isClientAllowed, runtime }));
 */
export function createEmbeddingsRoute(options: EmbeddingsRouteOptions): RouteDefinition {
  return {
    method: "POST",
    path: "/v1/embeddings",
    absolute: true,
    rawBody: true,
    summary: "OpenAI-compatible embeddings",
    tags: ["proxy"],
    ...(options.admission ? { rateLimit: false as const } : {}),
    handler: async (ctx: ServerContext) => {
      // Thrown outside the try: the route group's error writer answers in OpenAI's shape.
      options.admission?.precheck(ctx);
      let admitted: Admitted | undefined;
      try {
        if (!options.admission && !options.isClientAllowed(ctx))
          throw new OpenAIWireError(401, clientKeyRefusal(ctx), "invalid_request_error", null, "invalid_api_key");
        const body = await readJsonBody(ctx);
        const parsed = embeddingsRequestSchema.safeParse(body);
        if (!parsed.success) throw invalidRequestFromIssues(parsed.error);
        const request = parsed.data;
        const texts = typeof request.input === "string" ? [request.input] : request.input;
        if (!texts.every((item): item is string => typeof item === "string"))
          throw invalidRequest("Token arrays are not supported as input here: send text", "input", "unsupported_parameter");
        if (texts.some((text) => text === "")) throw invalidRequest("'$.input' is invalid: empty strings cannot be embedded", "input");
        const tokens = estimateTextsTokens(texts);
        if (options.admission) {
          try {
            // An embedding has no output tokens: only its input is reserved.
            admitted = await options.admission.admit(ctx, {
              surface: "openai",
              model: request.model,
              estimatedInputTokens: tokens,
              maxOutputTokens: 0,
            });
          } catch (error) {
            throw ServerAdapterError.isInstance(error) ? new PassThrough(error) : error;
          }
        }
        const target = await resolveEmbeddingModel(options.runtime, request.model);
        const result = await options.runtime.embedMany({ texts, ...target }, callContextOf(ctx));
        if (request.dimensions && request.dimensions !== result.dimension)
          throw invalidRequest(
            `The model '${request.model}' answers with ${result.dimension} dimensions and cannot change it`,
            "dimensions",
            "unsupported_parameter",
          );
        const base64 = request.encoding_format === "base64";
        admitted?.settle({
          model: request.model,
          target: `runtime/${request.model}`,
          inputTokens: tokens,
          outputTokens: 0,
          status: 200,
          latencyMs: 0,
        });
        return rawResponse(
          JSON.stringify({
            object: "list",
            data: result.embeddings.map((embedding, index) => ({
              object: "embedding",
              index,
              embedding: base64 ? base64Of(embedding) : embedding,
            })),
            model: request.model,
            usage: { prompt_tokens: tokens, total_tokens: tokens },
          }),
          { headers: { "content-type": "application/json" } },
        );
      } catch (error) {
        if (error instanceof PassThrough) throw error.error;
        admitted?.release();
        return fromRuntimeError(error).toResponse();
      }
    },
  };
}
