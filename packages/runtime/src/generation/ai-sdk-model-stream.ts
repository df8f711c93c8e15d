import type { LanguageModel } from "ai";
import { asLanguageModelUsage, convertToLanguageModelPrompt, prepareRetries, prepareToolsAndToolChoice } from "ai/internal";
import { mapProviderError } from "../providers/provider-error.js";
import { streamWithAiSdk, toMessages, toToolSet, toUsage, toolChoiceOf } from "./ai-sdk-engine.js";
import type { GenerationPart, GenerationPlan } from "./generation-part.js";

export type ModelV3 = Extract<LanguageModel, { specificationVersion: "v3" }>;
type StreamPart = Awaited<ReturnType<ModelV3["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never;

function timeoutError(message: string): Error {
  return Object.assign(new Error(message), { name: "TimeoutError" });
}

/**
 * The call's abort signal: the caller's, `stepMs` for the whole call, `chunkMs` between two
 * parts of the stream (as `streamText`'s `timeout`). `chunk()` rearms the chunk timer.
 */
function callLimits(plan: GenerationPlan) {
  const controller = new AbortController();
  const caller = plan.context.signal;
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener("abort", onAbort, { once: true });
  const { timeout } = plan;
  const step =
    timeout && setTimeout(() => controller.abort(timeoutError(`No complete answer within ${timeout.stepMs} ms`)), timeout.stepMs);
  const chunk =
    timeout && setTimeout(() => controller.abort(timeoutError(`No stream chunk within ${timeout.chunkMs} ms`)), timeout.chunkMs);
  return {
    signal: controller.signal,
    chunk: () => chunk?.refresh(),
    dispose: () => {
      clearTimeout(step);
      clearTimeout(chunk);
      caller?.removeEventListener("abort", onAbort);
    },
  };
}

function parsedInput(input: string): Record<string, unknown> {
  try {
    const value = JSON.parse(input === "" ? "{}" : input) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export type ModelCallOptions = Parameters<ModelV3["doStream"]>[0];

/** The options of the model's own `doStream`: the prompt, tools and settings `streamText` would have sent. */
export async function callOptions(plan: GenerationPlan, model: ModelV3, signal: AbortSignal | undefined): Promise<ModelCallOptions> {
  // Not `standardizePrompt`: it re-validates with zod the messages the runtime built itself (≈ 4 % of a call's CPU).
  const prompt = { messages: toMessages(plan), ...(plan.system === undefined ? {} : { system: plan.system }) };
  const tools = await prepareToolsAndToolChoice({
    tools: toToolSet(plan),
    toolChoice: plan.toolChoice === undefined ? undefined : toolChoiceOf(plan.toolChoice),
    activeTools: undefined,
  });
  const format = plan.responseFormat;
  return {
    prompt: await convertToLanguageModelPrompt({
      prompt,
      supportedUrls: await model.supportedUrls,
      download: undefined,
      abortSignal: signal,
    }),
    abortSignal: signal,
    ...(tools.tools === undefined ? {} : { tools: tools.tools }),
    ...(tools.toolChoice === undefined ? {} : { toolChoice: tools.toolChoice }),
    ...(format === undefined
      ? {}
      : {
          responseFormat: {
            type: "json" as const,
            ...(format.schema ? { schema: format.schema as never } : {}),
            ...(format.name ? { name: format.name } : {}),
          },
        }),
    ...(plan.temperature === undefined ? {} : { temperature: plan.temperature }),
    ...(plan.maxTokens === undefined ? {} : { maxOutputTokens: plan.maxTokens }),
    ...(plan.stopSequences === undefined ? {} : { stopSequences: plan.stopSequences }),
    ...(plan.topP === undefined ? {} : { topP: plan.topP }),
    ...(plan.seed === undefined ? {} : { seed: plan.seed }),
    ...(plan.frequencyPenalty === undefined ? {} : { frequencyPenalty: plan.frequencyPenalty }),
    ...(plan.presencePenalty === undefined ? {} : { presencePenalty: plan.presencePenalty }),
    ...(plan.context.traceSpan === undefined ? {} : { headers: plan.context.traceSpan.traceHeaders() }),
  };
}

/** One model part as the runtime's part (undefined: nothing the runtime passes on). */
function partOf(part: StreamPart): GenerationPart | undefined {
  switch (part.type) {
    case "text-start":
    case "text-end":
      return { type: part.type, id: part.id };
    case "text-delta":
      return { type: "text-delta", id: part.id, delta: part.delta };
    case "tool-call":
      return { type: "tool-call", call: { id: part.toolCallId, name: part.toolName, arguments: parsedInput(part.input) } };
    case "finish":
      return { type: "finish", reason: part.finishReason.unified, usage: toUsage(asLanguageModelUsage(part.usage)) };
    default:
      return undefined;
  }
}

/**
 * Streams one model call straight from the provider package's `doStream` — the same wire
 * translation as `streamText`, without its step loop, transforms and spans (≈ 2 ms of CPU a
 * call, see tools/bench `bench:provider-translation`). Taken when the runtime runs no tool of
 * its own (client tools are declared, never run: one step); otherwise `streamWithAiSdk`.
 * Retries (before the stream starts), timeouts and errors as there.
 */
export async function* streamWithModel(plan: GenerationPlan): AsyncGenerator<GenerationPart> {
  if (plan.tools.length > 0 || plan.provider.languageModel === undefined) return yield* streamWithAiSdk(plan);
  const limits = callLimits(plan);
  try {
    const model = await plan.provider.languageModel(plan.model);
    if (typeof model !== "object" || model.specificationVersion !== "v3") return yield* streamWithAiSdk(plan);
    const options = await callOptions(plan, model, limits.signal);
    const { retry } = prepareRetries({ maxRetries: plan.maxRetries, abortSignal: limits.signal });
    const { stream } = await retry(() => model.doStream(options));
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        limits.chunk();
        if (value.type === "error") {
          yield { type: "error", error: mapProviderError(value.error, plan.provider.name, plan.context.signal) };
          return;
        }
        const part = partOf(value);
        if (part !== undefined) yield part;
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  } catch (error) {
    yield { type: "error", error: mapProviderError(limits.signal.reason ?? error, plan.provider.name, plan.context.signal) };
  } finally {
    limits.dispose();
  }
}
