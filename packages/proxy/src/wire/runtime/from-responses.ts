import type { ClientToolDefinition, ConversationMessage, ConversationPart, GenerateRequest } from "@conduit-ai/server-core";
import { invalidRequest } from "../openai-chat/openai-wire-error.js";
import { ClientToolNames } from "../openai-responses/client-tool-names.js";
import { type InputItem, type ResponsesRequest, isMessageItem } from "../openai-responses/responses-request-schema.js";

// The request half of a Response answered by the runtime: Responses input and tools as the
// runtime's `GenerateRequest` (the answer half, for every surface, is to-messages-answer.ts).

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
 * `temperature`, `top_p`, `max_output_tokens`. Hosted tools (`web_search`, `file_search`, …: the
 * runtime's providers cannot run OpenAI's) are left out and named in `droppedTools` — never a
 * function tool — so Codex, which always sends `web_search`, works on any model.
 * `reasoning.effort` is a 400 naming it, unless `dropParams`.
 *
 * @example
 * const { generate } = runtimeRequestOfResponses(request, history, { provider: "local", model: "echo" }, false);
 */
export function runtimeRequestOfResponses(
  request: ResponsesRequest,
  history: InputItem[],
  target: { provider: string; model: string },
  dropParams: boolean,
): { generate: GenerateRequest; toolNames: ClientToolNames; droppedTools: string[] } {
  const refuse = (param: string, message: string) => {
    if (!dropParams) throw invalidRequest(message, param, "unsupported_parameter");
  };
  const toolNames = ClientToolNames.of(request.tools);
  const droppedTools: string[] = [];
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
      declare(named);
    } else if (tool.type === "namespace") {
      // A group of function tools (Codex's MCP servers and agents): flattened, the calls split back.
      const namespace = tool as { name: string; tools: Named[] };
      namespace.tools.forEach((member) => {
        if (member.type === "function") declare(member, ClientToolNames.flat(namespace.name, member.name ?? ""));
        else droppedTools.push(member.type);
      });
    } else droppedTools.push(tool.type);
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
  return { generate, toolNames, droppedTools: [...new Set(droppedTools)] };
}
