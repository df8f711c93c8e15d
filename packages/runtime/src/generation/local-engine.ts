import { StreamAbortedError, type ToolResultRecord } from "@conduit-ai/server-core";
import type { RuntimeTool } from "../tools/runtime-tool.js";
import { countTokens, type GenerationPart, type GenerationPlan } from "./generation-part.js";
import { lastToolResult, planClientToolCall, valueFromSchema } from "./local-client-tools.js";

interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The local provider's deterministic tool rule: arithmetic → `calculator`, time/date → `current_time`. */
export function planLocalToolCall(text: string, tools: RuntimeTool[]): PlannedCall | undefined {
  const available = new Set(tools.map((tool) => tool.info.name));
  if (available.has("calculator")) {
    const candidates = text.match(/[\d.(-][\d\s.+\-*/%^()]*[\d)]/g) ?? [];
    const expression = candidates.map((candidate) => candidate.trim()).find((candidate) => /[\d)]\s*[-+*/%^]\s*[\d(.-]/.test(candidate));
    if (expression !== undefined) return { name: "calculator", arguments: { expression } };
  }
  if (available.has("current_time") && /\b(time|date|clock|today)\b/i.test(text)) {
    const timezone = text.match(/\b[A-Z][A-Za-z_]+\/[A-Z][A-Za-z_]+(?:\/[A-Z][A-Za-z_]+)?\b/)?.[0] ?? "UTC";
    return { name: "current_time", arguments: { timezone } };
  }
  return undefined;
}

function describeToolOutcome(call: PlannedCall, outcome: ToolResultRecord): string {
  const result = outcome.result as Record<string, unknown> | undefined;
  if (result !== null && typeof result === "object" && "error" in result) return `the ${call.name} tool failed: ${String(result.error)}.`;
  if (call.name === "calculator") return `${String(result?.expression)} = ${String(result?.value)} (computed with the calculator tool).`;
  if (call.name === "current_time")
    return `the current time in ${String(result?.timezone)} is ${String(result?.local)} (from the current_time tool).`;
  return `the ${call.name} tool returned ${JSON.stringify(outcome.result)}.`;
}

/** JSON mode: the answer shaped as the caller's schema asks (or `{"answer": …}`), as text. */
function formatted(plan: GenerationPlan, answer: string): string {
  const format = plan.responseFormat;
  if (format === undefined) return answer;
  return JSON.stringify(format.schema === undefined ? { answer } : valueFromSchema(format.schema, answer));
}

function composeAnswer(plan: GenerationPlan, call: PlannedCall | undefined, outcome: ToolResultRecord | undefined): string {
  if (call !== undefined && outcome !== undefined) return `Local answer: ${describeToolOutcome(call, outcome)}`;
  const toolResult = lastToolResult(plan);
  if (toolResult !== undefined) return `Local answer: the ${toolResult.name} tool returned ${toolResult.content}.`;
  const earlier = plan.history.filter((message) => message.role === "user").at(-1);
  const memory = earlier === undefined ? "" : ` Earlier in this session you said: "${earlier.content}".`;
  return `Local answer (provider "local", no language model): you said "${plan.text}".${memory}`;
}

/** Lets abort signals and other I/O run between emitted words. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The embedded `local` provider: no network, deterministic output built from the input,
 * streamed word by word, calling a matching tool when tools are enabled.
 *
 * @example
 * for await (const part of streamLocally(plan)) console.log(part.type);
 */
export async function* streamLocally(plan: GenerationPlan): AsyncGenerator<GenerationPart> {
  const signal = plan.context.signal;
  const clientCall = planClientToolCall(plan);
  if (clientCall !== undefined) {
    yield { type: "tool-call", call: clientCall };
    const inputTokens = countTokens([plan.system ?? "", plan.text].join(" "));
    const outputTokens = countTokens(JSON.stringify(clientCall.arguments));
    yield { type: "finish", reason: "tool-calls", usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens } };
    return;
  }
  const call = planLocalToolCall(plan.text, plan.tools);
  let outcome: ToolResultRecord | undefined;
  if (call !== undefined) {
    const id = "call_local_1";
    yield { type: "tool-call", call: { id, ...call } };
    try {
      outcome = { id, name: call.name, result: await plan.executeTool(call.name, call.arguments, plan.context) };
    } catch (error) {
      outcome = { id, name: call.name, result: { error: error instanceof Error ? error.message : String(error) } };
    }
    yield { type: "tool-result", result: outcome };
  }
  const content = formatted(plan, composeAnswer(plan, call, outcome));
  const textId = "text_local_1";
  yield { type: "text-start", id: textId };
  for (const word of content.match(/\S+\s*/g) ?? []) {
    await yieldToEventLoop();
    if (signal?.aborted) {
      yield { type: "error", error: new StreamAbortedError("The request was aborted") };
      return;
    }
    yield { type: "text-delta", id: textId, delta: word };
  }
  yield { type: "text-end", id: textId };
  const promptText = [plan.system ?? "", ...plan.history.map((message) => message.content), plan.text].join(" ");
  const inputTokens = countTokens(promptText);
  const outputTokens = countTokens(content);
  yield { type: "finish", reason: "stop", usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens } };
}
