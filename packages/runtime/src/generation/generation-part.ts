import type {
  ClientToolDefinition,
  ConversationMessage,
  GenerateRequest,
  GenerateResult,
  RuntimeCallContext,
  ServerAdapterError,
  SessionMessage,
  TokenUsage,
  ToolCallRecord,
  ToolResultRecord,
} from "@conduit-ai/server-core";
import type { ConfiguredProvider } from "../providers/provider-registry.js";
import type { RuntimeTool } from "../tools/runtime-tool.js";

/** Everything an engine (local or AI SDK) needs for one generation, already validated. */
export interface GenerationPlan {
  text: string;
  system?: string;
  history: SessionMessage[];
  provider: ConfiguredProvider;
  model: string;
  tools: RuntimeTool[];
  maxSteps: number;
  temperature?: number;
  maxTokens?: number;
  /** The caller's whole conversation: replaces `history` + `text` as what the model reads. */
  conversation?: ConversationMessage[];
  /** Declared to the model, never executed: a call to one ends the generation (`tool-calls`). */
  clientTools: ClientToolDefinition[];
  toolChoice?: GenerateRequest["toolChoice"];
  responseFormat?: GenerateRequest["responseFormat"];
  stopSequences?: string[];
  topP?: number;
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  maxRetries: number;
  timeout?: { stepMs: number; chunkMs: number };
  context: RuntimeCallContext;
  /** Runs a tool through the registry (validation, confirmation) and returns its result; `context` is the plan's. */
  executeTool(name: string, args: Record<string, unknown>, context: RuntimeCallContext): Promise<unknown>;
}

/** The engines' common output; the runtime turns it into a `GenerateResult` or `DataStreamEvent`s. */
export type GenerationPart =
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "tool-call"; call: ToolCallRecord }
  | { type: "tool-result"; result: ToolResultRecord }
  | { type: "finish"; reason: string; usage: TokenUsage }
  | { type: "error"; error: ServerAdapterError };

/** Folds a part sequence into a result; an `error` part is thrown. */
export async function collectResult(parts: AsyncIterable<GenerationPart>, provider: string, model: string): Promise<GenerateResult> {
  const result: GenerateResult = {
    content: "",
    provider,
    model,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    toolCalls: [],
    toolResults: [],
    finishReason: "unknown",
  };
  for await (const part of parts) {
    if (part.type === "error") throw part.error;
    if (part.type === "text-delta") result.content += part.delta;
    if (part.type === "tool-call") result.toolCalls.push(part.call);
    if (part.type === "tool-result") result.toolResults.push(part.result);
    if (part.type === "finish") {
      result.finishReason = part.reason;
      result.usage = part.usage;
    }
  }
  return result;
}

/** Rough token count for the local provider: words and punctuation marks. */
export function countTokens(text: string): number {
  return text.match(/\w+|[^\s\w]/g)?.length ?? 0;
}
