import { generateWithAiSdk } from "./ai-sdk-engine.js";
import { streamWithModel } from "./ai-sdk-model-stream.js";
import { streamChatCompletions } from "./chat-completions-engine.js";
import { streamGemini } from "./gemini-stream-engine.js";
import type { GenerationPart, GenerationPlan } from "./generation-part.js";
import { streamLocally } from "./local-engine.js";
import { traceGeneration } from "./trace-generation.js";

/**
 * Runs a plan on the engine its provider calls for, traced: the embedded `local` provider
 * locally, a provider with a Chat Completions or Gemini endpoint by Conduit's own streaming
 * client when streaming, every other one through the AI SDK (its provider model read directly when the runtime
 * runs no tools: ai-sdk-model-stream.ts).
 */
export function runPlan(plan: GenerationPlan, streaming: boolean): AsyncIterable<GenerationPart> {
  return traceGeneration(plan, (traced) => engineFor(traced, streaming));
}

function engineFor(plan: GenerationPlan, streaming: boolean): AsyncIterable<GenerationPart> {
  if (plan.provider.languageModel === undefined) return streamLocally(plan);
  if (!streaming) return generateWithAiSdk(plan);
  const { chatCompletions, gemini } = plan.provider;
  if (chatCompletions !== undefined) return streamChatCompletions(plan, chatCompletions);
  return gemini === undefined ? streamWithModel(plan) : streamGemini(plan, gemini);
}
