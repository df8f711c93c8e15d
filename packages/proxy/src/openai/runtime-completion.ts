import { randomUUID } from "node:crypto";
import { type GenerateRequest, type Runtime, type RuntimeCallContext, ServerAdapterError } from "@conduit-ai/server-core";
import type { FinishReason } from "./chat-completion-shapes.js";
import type { ChatMessage, ChatRequest } from "./chat-request-schema.js";
import type { ChatCompletionChunk } from "./chunk-translator.js";
import type { ChatCompletion } from "./from-messages-response.js";
import { OpenAIError } from "./openai-error.js";
import { SSE_DONE, sseData, streamError } from "./chat-stream.js";

function textOf(message: ChatMessage): string {
  const content = message.content;
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

/**
 * The runtime takes one input text and a system prompt: a single user turn goes as is, a longer
 * conversation as a transcript (`role: text` lines) ending with the last turn.
 */
function generateRequestOf(request: ChatRequest, provider: string, model: string): GenerateRequest {
  const instructions = request.messages.filter((message) => message.role === "system" || message.role === "developer").map(textOf);
  const turns = request.messages.filter((message) => message.role !== "system" && message.role !== "developer");
  const text = turns.length === 1 ? textOf(turns[0]!) : turns.map((message) => `${message.role}: ${textOf(message)}`).join("\n");
  const generate: GenerateRequest = { input: { text }, provider, model };
  if (instructions.length > 0) generate.system = instructions.join("\n\n");
  if (request.temperature !== null && request.temperature !== undefined) generate.temperature = request.temperature;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens !== null && maxTokens !== undefined) generate.maxTokens = maxTokens;
  return generate;
}

/** `provider/model` or a model name some provider lists; anything else is OpenAI's 404 `model_not_found`. */
export async function resolveRuntimeModel(runtime: Runtime, model: string): Promise<{ provider: string; model: string }> {
  const providers = (await runtime.listProviders()).filter((provider) => provider.available);
  const slash = model.indexOf("/");
  if (slash > 0) {
    const named = providers.find((provider) => provider.name === model.slice(0, slash));
    if (named?.models.includes(model.slice(slash + 1))) return { provider: named.name, model: model.slice(slash + 1) };
  }
  const listing = providers.find((provider) => provider.models.includes(model));
  if (listing) return { provider: listing.name, model };
  throw new OpenAIError(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    "invalid_request_error",
    "model",
    "model_not_found",
  );
}

/** A runtime failure in OpenAI's shape, keeping the runtime's status and code. */
export function fromRuntimeError(error: unknown): OpenAIError {
  if (error instanceof OpenAIError) return error;
  if (ServerAdapterError.isInstance(error)) {
    const type = error.statusCode >= 500 ? "server_error" : error.statusCode === 429 ? "rate_limit_error" : "invalid_request_error";
    const headers: Record<string, string> =
      error.retryAfterMs === undefined ? {} : { "retry-after": String(Math.ceil(error.retryAfterMs / 1000)) };
    return new OpenAIError(error.statusCode, error.message, type, null, error.code, headers);
  }
  return new OpenAIError(500, "The server had an error while processing your request.", "server_error");
}

function finishReasonOf(reason: string | undefined): FinishReason {
  return reason === "length" || reason === "max-tokens" ? "length" : reason === "content-filter" ? "content_filter" : "stop";
}

interface Meta {
  id: string;
  created: number;
  /** The usage the provider reported, once (a gate settles with it). */
  onUsage?: (usage: { inputTokens: number; outputTokens: number }) => void;
}

/** A non-Claude model answered by the runtime's providers, as a `chat.completion`. */
export async function generateWithRuntime(
  runtime: Runtime,
  request: ChatRequest,
  context: RuntimeCallContext,
  meta: Meta,
): Promise<ChatCompletion> {
  const target = await resolveRuntimeModel(runtime, request.model);
  const result = await runtime.generate(generateRequestOf(request, target.provider, target.model), context);
  meta.onUsage?.(result.usage);
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: request.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: result.content, refusal: null },
        logprobs: null,
        finish_reason: finishReasonOf(result.finishReason),
      },
    ],
    usage: {
      prompt_tokens: result.usage.inputTokens,
      completion_tokens: result.usage.outputTokens,
      total_tokens: result.usage.totalTokens,
      prompt_tokens_details: { cached_tokens: 0 },
    },
  };
}

/**
 * A non-Claude model streamed by the runtime as chat completion chunks. Tools the runtime runs
 * itself are not client tool calls, so only text, the finish and usage reach the client.
 */
export async function* streamWithRuntime(
  runtime: Runtime,
  request: ChatRequest,
  context: RuntimeCallContext,
  meta: Meta & { includeUsage: boolean; target: { provider: string; model: string } },
): AsyncGenerator<string> {
  const chunk = (delta: ChatCompletionChunk["choices"][0]["delta"], finish: FinishReason | null = null): string => {
    const value: ChatCompletionChunk = {
      id: meta.id,
      object: "chat.completion.chunk",
      created: meta.created,
      model: request.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (meta.includeUsage) value.usage = null;
    return sseData(value);
  };
  yield chunk({ role: "assistant", content: "" });
  try {
    for await (const event of runtime.stream(generateRequestOf(request, meta.target.provider, meta.target.model), context)) {
      const data = event.data as {
        delta?: string;
        reason?: string;
        usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
        message?: string;
        code?: string;
      };
      if (event.type === "text-delta" && data.delta) yield chunk({ content: data.delta });
      else if (event.type === "error") {
        yield sseData(streamError(data.message ?? "The provider failed", "server_error", data.code ?? null));
        return;
      } else if (event.type === "finish") {
        if (data.usage) meta.onUsage?.(data.usage);
        yield chunk({}, finishReasonOf(data.reason));
        if (meta.includeUsage && data.usage) {
          const usage = {
            prompt_tokens: data.usage.inputTokens,
            completion_tokens: data.usage.outputTokens,
            total_tokens: data.usage.totalTokens,
            prompt_tokens_details: { cached_tokens: 0 },
          };
          yield sseData({ id: meta.id, object: "chat.completion.chunk", created: meta.created, model: request.model, choices: [], usage });
        }
        yield SSE_DONE;
        return;
      }
    }
    yield sseData(streamError("The provider stream ended before it finished"));
  } catch (error) {
    const failure = fromRuntimeError(error);
    yield sseData(failure.toBody());
  }
}

export function newCompletionId(): string {
  return `chatcmpl-${randomUUID().replace(/-/g, "")}`;
}
