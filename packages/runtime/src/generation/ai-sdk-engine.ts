import type { TokenUsage } from "@conduit-ai/server-core";
import {
  Output,
  dynamicTool,
  generateText,
  jsonSchema,
  type LanguageModelUsage,
  type ModelMessage,
  stepCountIs,
  streamText,
  type ToolSet,
} from "ai";
import { mapProviderError } from "../providers/provider-error.js";
import { toModelMessages } from "./conversation-messages.js";
import type { GenerationPart, GenerationPlan } from "./generation-part.js";

export function toMessages(plan: GenerationPlan): ModelMessage[] {
  if (plan.conversation !== undefined) return toModelMessages(plan.conversation);
  const history: ModelMessage[] = [];
  for (const message of plan.history) {
    if (message.role === "user" || message.role === "assistant") history.push({ role: message.role, content: message.content });
  }
  return [...history, { role: "user", content: plan.text }];
}

export function toToolSet(plan: GenerationPlan): ToolSet | undefined {
  if (plan.tools.length === 0 && plan.clientTools.length === 0) return undefined;
  const tools: ToolSet = {};
  // Without `execute` the AI SDK hands the call back instead of running it: the caller runs it.
  for (const tool of plan.clientTools) {
    tools[tool.name] = dynamicTool({
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: jsonSchema(tool.parameters as Parameters<typeof jsonSchema>[0]),
    } as Parameters<typeof dynamicTool>[0]);
  }
  for (const tool of plan.tools) {
    tools[tool.info.name] = dynamicTool({
      description: tool.info.description,
      inputSchema: jsonSchema(tool.info.inputSchema),
      execute: (input) => plan.executeTool(tool.info.name, (input ?? {}) as Record<string, unknown>, plan.context),
    });
  }
  return tools;
}

/** The AI SDK's usage in the runtime's shape: the cache and reasoning details only when the vendor reported them. */
export function toUsage(usage: LanguageModelUsage | undefined): TokenUsage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  const cacheReadTokens = usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens;
  const cacheWriteTokens = usage?.inputTokenDetails?.cacheWriteTokens;
  const reasoningTokens = usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage?.totalTokens ?? inputTokens + outputTokens,
    ...(cacheReadTokens ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens ? { cacheWriteTokens } : {}),
    ...(reasoningTokens ? { reasoningTokens } : {}),
  };
}

async function callSettings(plan: GenerationPlan) {
  const languageModel = plan.provider.languageModel;
  if (languageModel === undefined) throw new Error(`Provider ${plan.provider.name} has no language models`);
  const tools = toToolSet(plan);
  return {
    model: await languageModel(plan.model),
    messages: toMessages(plan),
    maxRetries: plan.maxRetries,
    ...(plan.timeout === undefined ? {} : { timeout: plan.timeout }),
    ...(plan.system === undefined ? {} : { system: plan.system }),
    ...(plan.temperature === undefined ? {} : { temperature: plan.temperature }),
    ...(plan.maxTokens === undefined ? {} : { maxOutputTokens: plan.maxTokens }),
    ...(tools === undefined ? {} : { tools, stopWhen: stepCountIs(plan.maxSteps) }),
    ...(plan.toolChoice === undefined ? {} : { toolChoice: toolChoiceOf(plan.toolChoice) }),
    ...(plan.responseFormat === undefined ? {} : { output: outputOf(plan.responseFormat) }),
    ...(plan.stopSequences === undefined ? {} : { stopSequences: plan.stopSequences }),
    ...(plan.topP === undefined ? {} : { topP: plan.topP }),
    ...(plan.seed === undefined ? {} : { seed: plan.seed }),
    ...(plan.frequencyPenalty === undefined ? {} : { frequencyPenalty: plan.frequencyPenalty }),
    ...(plan.presencePenalty === undefined ? {} : { presencePenalty: plan.presencePenalty }),
    ...(plan.context.signal === undefined ? {} : { abortSignal: plan.context.signal }),
    // W3C trace context to the vendor: the model call's span is its parent.
    ...(plan.context.traceSpan === undefined ? {} : { headers: plan.context.traceSpan.traceHeaders() }),
  };
}

export function toolChoiceOf(choice: NonNullable<GenerationPlan["toolChoice"]>) {
  return typeof choice === "string" ? choice : { type: "tool" as const, toolName: choice.name };
}

/** JSON mode, with the caller's schema when given: the answer's text is the JSON. */
function outputOf(format: NonNullable<GenerationPlan["responseFormat"]>) {
  if (format.schema === undefined) return Output.json();
  return Output.object({
    schema: jsonSchema(format.schema as Parameters<typeof jsonSchema>[0]),
    ...(format.name ? { name: format.name } : {}),
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One non-streaming call (JSON response upstream), replayed as parts so both engines share one result builder. */
export async function* generateWithAiSdk(plan: GenerationPlan): AsyncGenerator<GenerationPart> {
  let result: Awaited<ReturnType<typeof generateText>>;
  try {
    result = await generateText(await callSettings(plan));
  } catch (error) {
    yield { type: "error", error: mapProviderError(error, plan.provider.name, plan.context.signal) };
    return;
  }
  for (const step of result.steps) {
    for (const call of step.toolCalls) {
      yield {
        type: "tool-call",
        call: { id: call.toolCallId, name: call.toolName, arguments: (call.input ?? {}) as Record<string, unknown> },
      };
    }
    for (const part of step.content) {
      if (part.type === "tool-result")
        yield { type: "tool-result", result: { id: part.toolCallId, name: part.toolName, result: part.output } };
      if (part.type === "tool-error")
        yield { type: "tool-result", result: { id: part.toolCallId, name: part.toolName, result: { error: errorText(part.error) } } };
    }
  }
  yield { type: "text-start", id: "text_0" };
  yield { type: "text-delta", id: "text_0", delta: result.text };
  yield { type: "text-end", id: "text_0" };
  yield { type: "finish", reason: result.finishReason, usage: toUsage(result.totalUsage) };
}

/** Streams through the AI SDK; upstream failures become one `error` part and the stream ends. */
export async function* streamWithAiSdk(plan: GenerationPlan): AsyncGenerator<GenerationPart> {
  try {
    // onError is a no-op: errors arrive as `error` parts below, and the default handler would log them a second time.
    const result = streamText({ ...(await callSettings(plan)), onError: () => {} });
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-start":
        case "text-end":
          yield { type: part.type, id: part.id };
          break;
        case "text-delta":
          yield { type: "text-delta", id: part.id, delta: part.text };
          break;
        case "tool-call":
          yield {
            type: "tool-call",
            call: { id: part.toolCallId, name: part.toolName, arguments: (part.input ?? {}) as Record<string, unknown> },
          };
          break;
        case "tool-result":
          yield { type: "tool-result", result: { id: part.toolCallId, name: part.toolName, result: part.output } };
          break;
        case "tool-error":
          yield { type: "tool-result", result: { id: part.toolCallId, name: part.toolName, result: { error: errorText(part.error) } } };
          break;
        case "error":
          yield { type: "error", error: mapProviderError(part.error, plan.provider.name, plan.context.signal) };
          return;
        case "abort":
          yield {
            type: "error",
            error: mapProviderError(Object.assign(new Error("aborted"), { name: "AbortError" }), plan.provider.name, plan.context.signal),
          };
          return;
        case "finish":
          yield { type: "finish", reason: part.finishReason, usage: toUsage(part.totalUsage) };
          break;
      }
    }
  } catch (error) {
    yield { type: "error", error: mapProviderError(error, plan.provider.name, plan.context.signal) };
  }
}
