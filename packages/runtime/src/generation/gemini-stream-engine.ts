import { ServerAdapterError } from "@conduit-ai/server-core";
import { APICallError } from "ai";
import { createParser } from "eventsource-parser";
import type { ChatCompletionsEndpoint } from "../providers/chat-completions-endpoint.js";
import { mapProviderError } from "../providers/provider-error.js";
import { RuntimeErrorCode } from "../runtime-errors.js";
import { callOptions, type ModelCallOptions, type ModelV3, streamWithModel } from "./ai-sdk-model-stream.js";
import { CallGuard } from "./call-guard.js";
import { openStream } from "./chat-completions-retry.js";
import type { GenerationPart, GenerationPlan } from "./generation-part.js";
import { type GeminiChunk, GeminiStreamReader } from "./gemini-stream-reader.js";

/** `@ai-sdk/google`'s language model: its request builder (not part of the AI SDK's model interface, hence checked). */
type GeminiRequestBuilder = (options: ModelCallOptions, settings: { isStreaming: boolean }) => Promise<{ args: Record<string, unknown> }>;

/** Google's RPC status names as HTTP statuses, for an error sent mid-stream without a `code`. */
const RPC_STATUSES: Record<string, number> = {
  CANCELLED: 499,
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  RESOURCE_EXHAUSTED: 429,
  UNIMPLEMENTED: 501,
  UNKNOWN: 500,
  INTERNAL: 500,
  DATA_LOSS: 500,
  UNAVAILABLE: 503,
};

function requestBuilderOf(model: unknown): GeminiRequestBuilder | undefined {
  if (typeof model !== "object" || model === null || (model as ModelV3).specificationVersion !== "v3") return undefined;
  const getArgs = (model as { getArgs?: unknown }).getArgs;
  return typeof getArgs === "function" ? (getArgs.bind(model) as GeminiRequestBuilder) : undefined;
}

function malformed(provider: string): ServerAdapterError {
  return new ServerAdapterError(`Provider "${provider}" sent a malformed stream: a chunk is not JSON`, {
    code: RuntimeErrorCode.PROVIDER_ERROR,
    statusCode: 502,
    category: "EXTERNAL",
    details: { provider },
  });
}

/** An error the server sent inside the stream, as the package reports it. */
function streamError(error: NonNullable<GeminiChunk["error"]>, url: URL, body: Record<string, unknown>): APICallError {
  const statusCode = error.code ?? (error.status == null ? undefined : RPC_STATUSES[error.status]);
  return new APICallError({
    message: error.message,
    url: url.href,
    requestBodyValues: body,
    ...(statusCode == null ? {} : { statusCode }),
    responseBody: JSON.stringify({ error }),
    data: error,
  });
}

/**
 * Streams a Gemini API generation with Conduit's own lean client (see `ChatCompletionsEndpoint`:
 * `node:http`, an SSE parser and `JSON.parse`, instead of `fetch`, web streams and per-chunk
 * schema validation — tools/bench `bench:provider-translation`). The request body is the one
 * `@ai-sdk/google` builds (its `getArgs`), so both paths send the same; the chunks are read as
 * that package reads them (gemini-stream-reader.ts). Retries, key pools, timeouts and errors
 * as the Chat Completions engine. Taken when the runtime runs no tool of its own (one model
 * call); otherwise, or when the package no longer has its request builder, `streamWithModel`.
 */
export async function* streamGemini(plan: GenerationPlan, endpoint: ChatCompletionsEndpoint): AsyncGenerator<GenerationPart> {
  if (plan.tools.length > 0 || plan.provider.languageModel === undefined) return yield* streamWithModel(plan);
  const guard = new CallGuard(plan.context.signal, plan.timeout);
  try {
    const model = await plan.provider.languageModel(plan.model);
    const buildRequest = requestBuilderOf(model);
    if (buildRequest === undefined) return yield* streamWithModel(plan);
    const { args } = await buildRequest(await callOptions(plan, model as ModelV3, plan.context.signal), { isStreaming: true });
    const modelPath = plan.model.includes("/") ? plan.model : `models/${plan.model}`;
    const url = new URL(`${endpoint.url.href}${modelPath}:streamGenerateContent?alt=sse`);
    const reader = new GeminiStreamReader();
    const parts: GenerationPart[] = [];
    const pending: string[] = [];
    let body = args;
    for (;;) {
      const response = await openStream(endpoint, body, plan, guard, url);
      guard.attachResponse(response);
      const parser = createParser({ onEvent: (event) => pending.push(event.data) });
      response.setEncoding("utf8");
      for await (const text of response) {
        guard.chunk();
        parser.feed(text as string);
        for (const data of pending) {
          let chunk: GeminiChunk;
          try {
            chunk = JSON.parse(data) as GeminiChunk;
          } catch {
            throw malformed(plan.provider.name);
          }
          if (chunk.error != null) throw streamError(chunk.error, url, body);
          reader.read(chunk, parts);
          for (const part of parts) yield part;
          parts.length = 0;
        }
        pending.length = 0;
      }
      // A long answer the server cut at its per-request cap continues in a new request.
      const continuationToken = reader.continuationToken;
      if (continuationToken === undefined) break;
      reader.continuationToken = undefined;
      body = { ...args, continuationToken };
    }
    reader.finish(parts);
    yield* parts;
  } catch (error) {
    yield { type: "error", error: mapProviderError(error, plan.provider.name, plan.context.signal) };
  } finally {
    guard.dispose();
  }
}
