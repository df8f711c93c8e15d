import { type GenerateRequest, type Runtime, type RuntimeCallContext, type ToolCallRecord, rawResponse } from "@conduit-ai/server-core";
import { EVENT_STREAM_HEADERS } from "../../surfaces/event-stream.js";
import { fromRuntimeError, resolveRuntimeModel } from "./runtime-completion.js";
import type { ClientToolNames } from "../../wire/openai-responses/client-tool-names.js";
import { type OutputItem, type ResponseObject, newId } from "../../wire/openai-responses/response-object.js";
import type { InputItem, ResponsesRequest } from "../../wire/openai-responses/responses-request-schema.js";
import { ResponsesSse } from "../../surfaces/responses/responses-sse.js";
import { runtimeRequestOfResponses as runtimeRequestOf } from "../../wire/runtime/from-responses.js";
import type { ResponsesEvent } from "../../wire/openai-responses/stream-translator.js";

// The answer half of a Response answered by the runtime: the result as a Response object, or
// the runtime's stream as Responses events (the request half is runtime-responses-request.ts).

/** A runtime tool call as the output item the client declared it as. */
function callItem(call: ToolCallRecord, toolNames: ClientToolNames): OutputItem {
  if (toolNames.isCustom(call.name)) {
    const input = call.arguments.input;
    return {
      type: "custom_tool_call",
      id: newId("ctc"),
      call_id: call.id,
      name: call.name,
      input: typeof input === "string" ? input : "",
      status: "completed",
    };
  }
  return {
    type: "function_call",
    id: newId("fc"),
    call_id: call.id,
    ...toolNames.callOf(call.name),
    arguments: JSON.stringify(call.arguments),
    status: "completed",
  };
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
  const { generate, toolNames } = runtimeRequestOf(request, options.history, target, options.dropParams);
  if (!request.stream) {
    const result = await runtime.generate(generate, options.context);
    const output: OutputItem[] = result.toolCalls.map((call) => callItem(call, toolNames));
    if (result.content !== "" || output.length === 0)
      output.unshift({
        type: "message",
        id: newId("msg"),
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: result.content, annotations: [] }],
      });
    const length = isLengthReason(result.finishReason);
    const response: ResponseObject = {
      ...options.shell,
      status: length ? "incomplete" : "completed",
      incomplete_details: length ? { reason: "max_output_tokens" } : null,
      output,
      usage: usageOf(result.usage),
    };
    await options.onComplete(response);
    return rawResponse(JSON.stringify(response), { headers: { "content-type": "application/json" } });
  }
  return rawResponse(streamRuntime(runtime, generate, toolNames, options), { headers: EVENT_STREAM_HEADERS });
}

async function* streamRuntime(
  runtime: Runtime,
  generate: GenerateRequest,
  toolNames: ClientToolNames,
  options: RuntimeResponseOptions,
): AsyncGenerator<string> {
  const calls: OutputItem[] = [];
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
      } else if (event.type === "tool-call") {
        const call = callItem(event.data as ToolCallRecord, toolNames);
        const outputIndex = calls.length + 1;
        calls.push(call);
        const events: ResponsesEvent[] = [
          { type: "response.output_item.added", output_index: outputIndex, item: { ...call, status: "in_progress" } },
        ];
        if (call.type === "function_call") {
          events.push({
            type: "response.function_call_arguments.delta",
            item_id: call.id,
            output_index: outputIndex,
            delta: call.arguments,
          });
          events.push({
            type: "response.function_call_arguments.done",
            item_id: call.id,
            output_index: outputIndex,
            arguments: call.arguments,
          });
        }
        events.push({ type: "response.output_item.done", output_index: outputIndex, item: call });
        yield sse.frame(events);
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
          output: [item, ...calls],
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
