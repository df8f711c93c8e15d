import { generateWithAiSdk, streamWithAiSdk } from "./ai-sdk-engine.js";
import { streamChatCompletions } from "./chat-completions-engine.js";
import type { GenerationPart, GenerationPlan } from "./generation-part.js";
import { streamLocally } from "./local-engine.js";
import { traceGeneration } from "./trace-generation.js";

/**
 * Runs a plan on the engine its provider calls for, traced: the embedded `local` provider
 * locally, a provider with a Chat Completions endpoint by its own streaming client when
 * streaming, every other one through the AI SDK.
 */
export function runPlan(plan: GenerationPlan, streaming: boolean): AsyncIterable<GenerationPart> {
  return traceGeneration(plan, (traced) => engineFor(traced, streaming));
}

function engineFor(plan: GenerationPlan, streaming: boolean): AsyncIterable<GenerationPart> {
  if (plan.provider.languageModel === undefined) return streamLocally(plan);
  if (!streaming) return generateWithAiSdk(plan);
  const endpoint = plan.provider.chatCompletions;
  return endpoint === undefined ? streamWithAiSdk(plan) : streamChatCompletions(plan, endpoint);
}
