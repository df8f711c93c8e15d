import {
  type ClientToolDefinition,
  type ConversationMessage,
  type ConversationPart,
  type GenerateRequest,
  type Runtime,
  type RuntimeCallContext,
  type ToolCallRecord,
  rawResponse,
} from "@conduit-ai/server-core";
import { STREAM_HEADERS } from "../claude-completion.js";
import { invalidRequest } from "../openai-error.js";
import { fromRuntimeError, resolveRuntimeModel } from "../runtime-completion.js";
import { ClientToolNames } from "./client-tool-names.js";
import { type OutputItem, type ResponseObject, newId } from "./response-object.js";
import { type InputItem, type ResponsesRequest, isMessageItem } from "./responses-request-schema.js";
import { ResponsesSse } from "./responses-sse.js";
import type { ResponsesEvent } from "./stream-translator.js";

type Part = { type: string; text?: unknown; image_url?: unknown };

function partsOf(content: string | ReadonlyArray<Part>): string | ConversationPart[] {
  if (typeof content === "string") return content;
  return content.flatMap((part): ConversationPart[] => {
    if (part.type === "input_image" && typeof part.image_url === "string") return [{ type: "image", url: part.image_url }];
    return typeof part.text === "string" ? [{ type: "text", text: part.text }] : [];
  });
}

const textOf = (content: string | ReadonlyArray<Part>) => {
  const parts = partsOf(content);
  return typeof parts === "string" ? parts : parts.map((part) => (part.type === "text" ? part.text : "")).join("");
};

/** Responses input items as the runtime's conversation: consecutive tool calls join one assistant turn. */
function conversationOf(items: InputItem[]): ConversationMessage[] {
  const conversation: ConversationMessage[] = [];
  const names = new Map<string, string>();
  const assistantTurn = (): Extract<ConversationMessage, { role: "assistant" }> => {
    const last = conversation.at(-1);
    if (last?.role === "assistant") return last;
    const turn: Extract<ConversationMessage, { role: "assistant" }> = { role: "assistant", content: "" };
    conversation.push(turn);
    return turn;
  };
  items.forEach((item, index) => {
    if (isMessageItem(item)) {
      if (item.role === "system" || item.role === "developer") conversation.push({ role: "system", content: textOf(item.content) });
      else if (item.role === "assistant") assistantTurn().content += textOf(item.content);
      else conversation.push({ role: "user", content: partsOf(item.content) });
      return;
    }
    if (item.type === "function_call" || item.type === "custom_tool_call") {
      const name = item.type === "function_call" && item.namespace ? ClientToolNames.flat(item.namespace, item.name) : item.name;
      names.set(item.call_id, name);
      const args = item.type === "custom_tool_call" ? { input: item.input } : parseArguments(item.arguments, `input[${index}].arguments`);
      const turn = assistantTurn();
      turn.toolCalls = [...(turn.toolCalls ?? []), { id: item.call_id, name, arguments: args }];
    } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      conversation.push({
        role: "tool",
        toolCallId: item.call_id,
        toolName: names.get(item.call_id) ?? "tool",
        content: textOf(item.output),
      });
    }
  });
  return conversation;
}

function parseArguments(text: string, param: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw invalidRequest("Function call arguments must be a JSON object", param);
}

const CUSTOM_PARAMETERS = { type: "object", properties: { input: { type: "string" } }, required: ["input"] };

/**
 * The runtime's request for a Response: the whole conversation (stored history first), function
 * and custom tools declared as the client's own, `tool_choice`, `text.format` (JSON Schema),
 * `temperature`, `top_p`, `max_output_tokens`. Hosted tools and `reasoning.effort` are a 400
 * naming them, unless `dropParams`.
 */
export function runtimeRequestOf(
  request: ResponsesRequest,
  history: InputItem[],
  target: { provider: string; model: string },
  dropParams: boolean,
): { generate: GenerateRequest; toolNames: ClientToolNames } {
  const refuse = (param: string, message: string) => {
    if (!dropParams) throw invalidRequest(message, param, "unsupported_parameter");
  };
  const toolNames = new ClientToolNames();
  const clientTools: ClientToolDefinition[] = [];
  type Named = { type: string; name?: string; description?: string | null; parameters?: Record<string, unknown> | null };
  const declare = (named: Named, name = named.name ?? "") =>
    clientTools.push({
      name,
      ...(named.description ? { description: named.description } : {}),
      parameters: named.type === "custom" ? CUSTOM_PARAMETERS : (named.parameters ?? { type: "object", properties: {} }),
    });
  (request.tools ?? []).forEach((tool, index) => {
    const named = tool as Named;
    if (tool.type === "function" || tool.type === "custom") {
      if (tool.type === "custom") toolNames.addCustom(named.name ?? "");
      declare(named);
    } else if (tool.type === "namespace") {
      // A group of function tools (Codex's MCP servers and agents): flattened, the calls split back.
      const namespace = tool as { name: string; tools: Named[] };
      namespace.tools.forEach((member, memberIndex) => {
        if (member.type === "function") declare(member, toolNames.addNamespaced(namespace.name, member.name ?? ""));
        else
          refuse(
            `tools[${index}].tools[${memberIndex}].type`,
            `Tools of type '${member.type}' are not supported by the model '${request.model}'`,
          );
      });
    } else refuse(`tools[${index}].type`, `Tools of type '${tool.type}' are not supported by the model '${request.model}'`);
  });
  if (request.reasoning?.effort) refuse("reasoning.effort", `reasoning.effort is not supported by the model '${request.model}'`);
  const input: InputItem[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : (request.input ?? []);
  const messages = conversationOf([...history, ...input]);
  if (!messages.some((message) => message.role === "user"))
    throw invalidRequest("The input must contain at least one user message", "input");
  const generate: GenerateRequest = { messages, provider: target.provider, model: target.model };
  if (request.instructions) generate.system = request.instructions;
  if (clientTools.length > 0) generate.clientTools = clientTools;
  const choice = request.tool_choice;
  if (choice !== null && choice !== undefined) generate.toolChoice = typeof choice === "string" ? choice : { name: choice.name };
  const format = request.text?.format as { type: string; schema?: Record<string, unknown>; name?: string } | undefined;
  if (format?.type === "json_object") generate.responseFormat = { type: "json" };
  else if (format?.type === "json_schema")
    generate.responseFormat = {
      type: "json",
      ...(format.schema ? { schema: format.schema } : {}),
      ...(format.name ? { name: format.name } : {}),
    };
  if (request.temperature !== null && request.temperature !== undefined) generate.temperature = request.temperature;
  if (request.top_p !== null && request.top_p !== undefined) generate.topP = request.top_p;
  if (request.max_output_tokens !== null && request.max_output_tokens !== undefined) generate.maxTokens = request.max_output_tokens;
  return { generate, toolNames };
}

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
  return rawResponse(streamRuntime(runtime, generate, toolNames, options), { headers: STREAM_HEADERS });
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
