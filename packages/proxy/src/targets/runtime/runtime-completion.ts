import { randomUUID } from "node:crypto";
import { type Runtime, type RuntimeCallContext, ServerAdapterError, type ToolCallRecord } from "@conduit-ai/server-core";
import type { ChatToolCall, FinishReason } from "../../wire/openai-chat/chat-completion-shapes.js";
import { runtimeRequestOfChat as runtimeRequestOf } from "../../wire/runtime/from-chat.js";
import type { ChatRequest } from "../../wire/openai-chat/chat-request-schema.js";
import type { ChatCompletionChunk } from "../../wire/openai-chat/chunk-translator.js";
import type { ChatCompletion } from "../../wire/openai-chat/from-messages-response.js";
import { OpenAIWireError } from "../../wire/openai-chat/openai-wire-error.js";
import { SSE_DONE, sseData, streamError } from "../../surfaces/chat-completions/chat-stream.js";

/** `provider/model`, a model name some provider lists, or a bare provider name (its default model); anything else is OpenAI's 404 `model_not_found`. */
export async function resolveRuntimeModel(runtime: Runtime, model: string): Promise<{ provider: string; model: string }> {
  const providers = (await runtime.listProviders()).filter((provider) => provider.available);
  const slash = model.indexOf("/");
  if (slash > 0) {
    const named = providers.find((provider) => provider.name === model.slice(0, slash));
    if (named?.models.includes(model.slice(slash + 1))) return { provider: named.name, model: model.slice(slash + 1) };
  }
  const listing = providers.find((provider) => provider.models.includes(model));
  if (listing) return { provider: listing.name, model };
  // A bare provider name means its default model (`model: "local"`).
  const provider = providers.find((candidate) => candidate.name === model && candidate.models.length > 0);
  if (provider) return { provider: provider.name, model: provider.models[0]! };
  throw new OpenAIWireError(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    "invalid_request_error",
    "model",
    "model_not_found",
  );
}

/** A runtime failure in OpenAI's shape, keeping the runtime's status and code. */
export function fromRuntimeError(error: unknown): OpenAIWireError {
  if (error instanceof OpenAIWireError) return error;
  if (ServerAdapterError.isInstance(error)) {
    const type = error.statusCode >= 500 ? "server_error" : error.statusCode === 429 ? "rate_limit_error" : "invalid_request_error";
    const headers: Record<string, string> =
      error.retryAfterMs === undefined ? {} : { "retry-after": String(Math.ceil(error.retryAfterMs / 1000)) };
    return new OpenAIWireError(error.statusCode, error.message, type, null, error.code, headers);
  }
  return new OpenAIWireError(500, "The server had an error while processing your request.", "server_error");
}

function finishReasonOf(reason: string | undefined): FinishReason {
  if (reason === "tool-calls") return "tool_calls";
  return reason === "length" || reason === "max-tokens" ? "length" : reason === "content-filter" ? "content_filter" : "stop";
}

const asToolCall = (call: ToolCallRecord): ChatToolCall => ({
  id: call.id,
  type: "function",
  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
});

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
  meta: Meta & { dropParams: boolean },
): Promise<ChatCompletion> {
  const target = await resolveRuntimeModel(runtime, request.model);
  const result = await runtime.generate(runtimeRequestOf(request, target, meta.dropParams), context);
  meta.onUsage?.(result.usage);
  const toolCalls = result.toolCalls.map(asToolCall);
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: result.content === "" && toolCalls.length > 0 ? null : result.content,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
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
  meta: Meta & { includeUsage: boolean; target: { provider: string; model: string }; dropParams: boolean },
): AsyncGenerator<string> {
  let toolIndex = 0;
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
    for await (const event of runtime.stream(runtimeRequestOf(request, meta.target, meta.dropParams), context)) {
      const data = event.data as {
        delta?: string;
        reason?: string;
        usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
        message?: string;
        code?: string;
      };
      if (event.type === "text-delta" && data.delta) yield chunk({ content: data.delta });
      else if (event.type === "tool-call") {
        const call = asToolCall(event.data as ToolCallRecord);
        yield chunk({ tool_calls: [{ index: toolIndex++, id: call.id, type: "function", function: call.function }] });
      } else if (event.type === "error") {
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
