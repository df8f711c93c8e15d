import { ServerAdapterError, type TokenUsage } from "@conduit-ai/server-core";
import { createParser } from "eventsource-parser";
import type { ChatCompletionsEndpoint } from "../providers/chat-completions-endpoint.js";
import { mapProviderError } from "../providers/provider-error.js";
import { RuntimeErrorCode } from "../runtime-errors.js";
import { CallGuard } from "./call-guard.js";
import { type ChatMessage, type ToolCallMessage, initialMessages, requestBody } from "./chat-completions-request.js";
import { openStream } from "./chat-completions-retry.js";
import type { GenerationPart, GenerationPlan } from "./generation-part.js";
import { addTokenUsage, type ChatCompletionsUsage, fromChatCompletionsUsage } from "./token-usage.js";

interface StreamChunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    } | null;
    finish_reason?: string | null;
  }>;
  usage?: ChatCompletionsUsage | null;
  error?: { message?: string } | string;
}

interface StepResult {
  text: string;
  toolCalls: ToolCallMessage[];
  finishReason: string;
  usage: TokenUsage;
}

/** The AI SDK's unified finish reasons, so both engines report the same values. */
const FINISH_REASONS: Record<string, string> = {
  stop: "stop",
  length: "length",
  content_filter: "content-filter",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
};

function malformed(provider: string, detail: string): ServerAdapterError {
  return new ServerAdapterError(`Provider "${provider}" sent a malformed stream: ${detail}`, {
    code: RuntimeErrorCode.PROVIDER_ERROR,
    statusCode: 502,
    category: "EXTERNAL",
    details: { provider },
  });
}

/** One model call: streams its text as parts and returns what the tool loop needs. */
async function* streamStep(
  endpoint: ChatCompletionsEndpoint,
  plan: GenerationPlan,
  messages: ChatMessage[],
  textId: string,
): AsyncGenerator<GenerationPart, StepResult> {
  const guard = new CallGuard(plan.context.signal, plan.timeout);
  try {
    const response = await openStream(endpoint, requestBody(plan, messages), plan, guard);
    guard.attachResponse(response);
    const result: StepResult = {
      text: "",
      toolCalls: [],
      finishReason: "other",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    };
    const pending: string[] = [];
    const keepText = plan.tools.length > 0 || plan.clientTools.length > 0;
    let textStarted = false;
    const parser = createParser({ onEvent: (event) => pending.push(event.data) });
    response.setEncoding("utf8");
    for await (const text of response) {
      guard.chunk();
      parser.feed(text as string);
      for (const data of pending) {
        if (data === "[DONE]") continue;
        let chunk: StreamChunk;
        try {
          chunk = JSON.parse(data) as StreamChunk;
        } catch {
          throw malformed(plan.provider.name, "a chunk is not JSON");
        }
        if (chunk.error !== undefined) {
          const message = typeof chunk.error === "string" ? chunk.error : (chunk.error.message ?? "unknown error");
          throw new ServerAdapterError(`Provider "${plan.provider.name}" failed mid-stream: ${message}`, {
            code: RuntimeErrorCode.PROVIDER_ERROR,
            statusCode: 502,
            category: "EXTERNAL",
            details: { provider: plan.provider.name },
          });
        }
        if (chunk.usage) result.usage = fromChatCompletionsUsage(chunk.usage);
        const choice = chunk.choices?.[0];
        if (choice === undefined) continue;
        const content = choice.delta?.content;
        if (typeof content === "string" && content !== "") {
          if (!textStarted) {
            textStarted = true;
            yield { type: "text-start", id: textId };
          }
          // Kept only when a tool step may need it (the assistant message): a long answer is not held twice.
          if (keepText) result.text += content;
          yield { type: "text-delta", id: textId, delta: content };
        }
        const toolDeltas = choice.delta?.tool_calls;
        if (toolDeltas)
          for (const delta of toolDeltas) {
            const index = delta.index ?? result.toolCalls.length;
            let call = result.toolCalls[index];
            if (call === undefined) {
              call = { id: delta.id ?? `call_${textId}_${index}`, type: "function", function: { name: "", arguments: "" } };
              result.toolCalls[index] = call;
            }
            if (delta.id) call.id = delta.id;
            if (delta.function?.name) call.function.name += delta.function.name;
            if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
          }
        if (choice.finish_reason) result.finishReason = FINISH_REASONS[choice.finish_reason] ?? "other";
      }
      pending.length = 0;
    }
    if (textStarted) yield { type: "text-end", id: textId };
    result.toolCalls = result.toolCalls.filter((call) => call !== undefined && call.function.name !== "");
    return result;
  } finally {
    guard.dispose();
  }
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text === "" ? "{}" : text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs one tool call; a failure is the tool's result (`{error}`), which the model gets to read. */
async function runTool(plan: GenerationPlan, call: ToolCallMessage): Promise<unknown> {
  const input = parseArguments(call.function.arguments);
  if (input === undefined) return { error: `Invalid JSON arguments for tool ${call.function.name}` };
  try {
    return await plan.executeTool(call.function.name, input, plan.context);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Streams a generation from an OpenAI-compatible Chat Completions server with Conduit's own
 * lean client (see `ChatCompletionsEndpoint`): the same parts, tool loop (`maxSteps`),
 * retries, timeouts and error mapping as the AI SDK engine, at a fraction of its memory per
 * concurrent stream. Failures become one `error` part and the stream ends.
 */
export async function* streamChatCompletions(plan: GenerationPlan, endpoint: ChatCompletionsEndpoint): AsyncGenerator<GenerationPart> {
  const messages = initialMessages(plan);
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  try {
    for (let step = 0; ; step++) {
      const result = yield* streamStep(endpoint, plan, messages, `text_${step}`);
      usage = addTokenUsage(usage, result.usage);
      if (result.toolCalls.length === 0 || plan.tools.length + plan.clientTools.length === 0) {
        yield { type: "finish", reason: result.finishReason, usage };
        return;
      }
      for (const call of result.toolCalls) {
        yield {
          type: "tool-call",
          call: { id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments) ?? {} },
        };
      }
      // A call of a caller-run tool ends the generation: the caller runs it and sends the result back.
      if (result.toolCalls.some((call) => plan.clientTools.some((tool) => tool.name === call.function.name))) {
        yield { type: "finish", reason: "tool-calls", usage };
        return;
      }
      const outputs = await Promise.all(result.toolCalls.map((call) => runTool(plan, call)));
      messages.push({ role: "assistant", content: result.text === "" ? null : result.text, tool_calls: result.toolCalls });
      for (const [index, call] of result.toolCalls.entries()) {
        yield { type: "tool-result", result: { id: call.id, name: call.function.name, result: outputs[index] } };
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(outputs[index] ?? null) });
      }
      if (step + 1 >= plan.maxSteps) {
        yield { type: "finish", reason: result.finishReason, usage };
        return;
      }
    }
  } catch (error) {
    yield { type: "error", error: mapProviderError(error, plan.provider.name, plan.context.signal) };
  }
}
