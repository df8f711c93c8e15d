import type { GenerateRequest, Runtime, RuntimeCallContext } from "@conduit-ai/server-core";
import { rawResponse } from "@conduit-ai/server-core";
import { STREAM_HEADERS } from "../claude-completion.js";
import { invalidRequest } from "../openai-error.js";
import { fromRuntimeError, resolveRuntimeModel } from "../runtime-completion.js";
import { type OutputItem, type ResponseObject, newId } from "./response-object.js";
import { type InputItem, type ResponsesRequest, isMessageItem } from "./responses-request-schema.js";
import { ResponsesSse } from "./responses-sse.js";
import type { ResponsesEvent } from "./stream-translator.js";

function textOf(content: string | ReadonlyArray<{ type: string }>): string {
  return typeof content === "string"
    ? content
    : content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

/**
 * The runtime's request for a Response: instructions and system items → `system`; one user
 * turn as is, a longer conversation as a transcript ending with the last turn. Tools and output
 * formats the runtime cannot honour are a 400 naming them (or left out with `dropParams`).
 */
export function runtimeRequestOf(
  request: ResponsesRequest,
  history: InputItem[],
  target: { provider: string; model: string },
  dropParams: boolean,
): GenerateRequest {
  const refuse = (param: string, message: string) => {
    if (!dropParams) throw invalidRequest(message, param, "unsupported_parameter");
  };
  if (request.tools && request.tools.length > 0) refuse("tools", `Client tools are not supported by the model '${request.model}'`);
  const format = request.text?.format?.type;
  if (format !== undefined && format !== "text")
    refuse("text.format", `text.format of type '${format}' is not supported by the model '${request.model}'`);
  const items: InputItem[] = [
    ...history,
    ...(typeof request.input === "string" ? [{ role: "user" as const, content: request.input }] : (request.input ?? [])),
  ];
  const system: string[] = request.instructions ? [request.instructions] : [];
  const turns: string[] = [];
  for (const item of items) {
    if (!isMessageItem(item)) continue;
    if (item.role === "system" || item.role === "developer") system.push(textOf(item.content));
    else turns.push(`${item.role}: ${textOf(item.content)}`);
  }
  if (turns.length === 0) throw invalidRequest("The input must contain at least one user message", "input");
  const lastUser = items.filter((item) => isMessageItem(item) && item.role === "user");
  const text = turns.length === 1 && lastUser.length === 1 ? textOf((lastUser[0] as { content: string }).content) : turns.join("\n");
  const generate: GenerateRequest = { input: { text }, provider: target.provider, model: target.model };
  if (system.length > 0) generate.system = system.join("\n\n");
  if (request.temperature !== null && request.temperature !== undefined) generate.temperature = request.temperature;
  if (request.max_output_tokens !== null && request.max_output_tokens !== undefined) generate.maxTokens = request.max_output_tokens;
  return generate;
}

function usageOf(usage: { inputTokens: number; outputTokens: number; totalTokens: number }) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.totalTokens,
  };
}

const isLengthReason = (reason: string | undefined) => reason === "length" || reason === "max-tokens";

export interface RuntimeResponseOptions {
  shell: ResponseObject;
  history: InputItem[];
  context: RuntimeCallContext;
  dropParams: boolean;
  onComplete: (response: ResponseObject) => Promise<void>;
}

/** A non-Claude model's Response, answered by the runtime's providers (`local` included), JSON or SSE. */
export async function respondWithRuntime(runtime: Runtime, request: ResponsesRequest, options: RuntimeResponseOptions) {
  const target = await resolveRuntimeModel(runtime, request.model);
  const generate = runtimeRequestOf(request, options.history, target, options.dropParams);
  if (!request.stream) {
    const result = await runtime.generate(generate, options.context);
    const message: OutputItem = {
      type: "message",
      id: newId("msg"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: result.content, annotations: [] }],
    };
    const length = isLengthReason(result.finishReason);
    const response: ResponseObject = {
      ...options.shell,
      status: length ? "incomplete" : "completed",
      incomplete_details: length ? { reason: "max_output_tokens" } : null,
      output: [message],
      usage: usageOf(result.usage),
    };
    await options.onComplete(response);
    return rawResponse(JSON.stringify(response), { headers: { "content-type": "application/json" } });
  }
  return rawResponse(streamRuntime(runtime, generate, options), { headers: STREAM_HEADERS });
}

async function* streamRuntime(runtime: Runtime, generate: GenerateRequest, options: RuntimeResponseOptions): AsyncGenerator<string> {
  const sse = new ResponsesSse();
  const shell = options.shell;
  const item = {
    type: "message" as const,
    id: newId("msg"),
    status: "in_progress" as "in_progress" | "completed",
    role: "assistant" as const,
    content: [] as Array<{ type: "output_text"; text: string; annotations: [] }>,
  };
  const where = { item_id: item.id, output_index: 0 };
  let text = "";
  yield sse.frame([
    { type: "response.created", response: shell },
    { type: "response.in_progress", response: shell },
    { type: "response.output_item.added", output_index: 0, item: structuredClone(item) },
    { type: "response.content_part.added", ...where, content_index: 0, part: { type: "output_text", text: "", annotations: [] } },
  ]);
  try {
    for await (const event of runtime.stream(generate, options.context)) {
      const data = event.data as {
        delta?: string;
        reason?: string;
        usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
        message?: string;
        code?: string;
      };
      if (event.type === "text-delta" && data.delta) {
        text += data.delta;
        yield sse.frame([{ type: "response.output_text.delta", ...where, content_index: 0, delta: data.delta, logprobs: [] }]);
      } else if (event.type === "error") {
        yield sse.frame([
          { type: "error", code: data.code ?? "server_error", message: data.message ?? "The provider failed", param: null },
        ]);
        return;
      } else if (event.type === "finish") {
        const part = { type: "output_text" as const, text, annotations: [] as [] };
        item.content.push(part);
        item.status = "completed";
        const length = isLengthReason(data.reason);
        const response: ResponseObject = {
          ...shell,
          status: length ? "incomplete" : "completed",
          incomplete_details: length ? { reason: "max_output_tokens" } : null,
          output: [item],
          usage: data.usage ? usageOf(data.usage) : null,
        };
        const events: ResponsesEvent[] = [
          { type: "response.output_text.done", ...where, content_index: 0, text, logprobs: [] },
          { type: "response.content_part.done", ...where, content_index: 0, part },
          { type: "response.output_item.done", output_index: 0, item },
          { type: length ? "response.incomplete" : "response.completed", response },
        ];
        await options.onComplete(response);
        yield sse.frame(events);
        return;
      }
    }
    yield sse.frame([{ type: "error", code: "server_error", message: "The provider stream ended before it finished", param: null }]);
  } catch (error) {
    const failure = fromRuntimeError(error);
    yield sse.frame([{ type: "error", code: failure.code ?? failure.type, message: failure.message, param: failure.param }]);
  }
}
