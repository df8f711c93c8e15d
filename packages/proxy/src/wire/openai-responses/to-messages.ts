import { invalidRequest } from "../openai-chat/openai-wire-error.js";
import { type MessagesBlock, type MessagesRequest, structuredOutputOf } from "../anthropic-messages/messages-request.js";
import { imageBlock } from "../openai-chat/to-messages-request.js";
import { ClientToolNames } from "./client-tool-names.js";
import { decodeThinking } from "./response-object.js";
import { type InputItem, type MessageItem, type ResponsesRequest, isMessageItem } from "./responses-request-schema.js";

/** A Messages block, thinking included (replayed from a reasoning item's `encrypted_content`). */
export type ResponsesMessagesBlock = MessagesBlock | { type: "thinking"; thinking: string; signature: string };

/** Anthropic's web search server tool: Claude runs the searches itself. */
export const WEB_SEARCH_TOOL = { type: "web_search_20250305", name: "web_search" } as const;

export interface ResponsesMessagesRequest extends Omit<MessagesRequest, "messages" | "tools"> {
  messages: Array<{ role: "user" | "assistant"; content: ResponsesMessagesBlock[] }>;
  tools?: Array<NonNullable<MessagesRequest["tools"]>[number] | typeof WEB_SEARCH_TOOL>;
  thinking?: { type: "enabled"; budget_tokens: number };
}

export interface ToMessagesOptions {
  defaultMaxTokens: number;
  /** Leave out what Claude cannot honour instead of refusing it with a 400. */
  dropParams: boolean;
}

/** What the translation needs to read the answer back: which tools were `custom` or namespaced. */
export interface Translation {
  request: ResponsesMessagesRequest;
  toolNames: ClientToolNames;
}

/** `reasoning.effort` as a thinking budget (Anthropic's minimum is 1,024 tokens). */
const THINKING_BUDGET: Record<string, number> = { low: 2_048, medium: 8_192, high: 24_576 };

const CUSTOM_INPUT_SCHEMA = {
  type: "object",
  properties: { input: { type: "string", description: "The tool's free-form input" } },
  required: ["input"],
};

function textOfParts(content: string | ReadonlyArray<{ type: string; text?: unknown }>): string {
  if (typeof content === "string") return content;
  return content.map((part) => (typeof part.text === "string" ? part.text : "")).join("");
}

function parseArguments(text: string, param: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("Function call arguments must be a JSON object", param);
  }
}

type Turn = { role: "user" | "assistant"; content: ResponsesMessagesBlock[] };

function append(turns: Turn[], role: Turn["role"], blocks: ResponsesMessagesBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === role) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}

function messageBlocks(item: MessageItem, param: string): ResponsesMessagesBlock[] {
  if (typeof item.content === "string") return item.content === "" ? [] : [{ type: "text", text: item.content }];
  const blocks: ResponsesMessagesBlock[] = [];
  item.content.forEach((part, index) => {
    if (part.type === "input_image" && typeof part.image_url === "string")
      blocks.push(imageBlock(part.image_url, `${param}.content[${index}].image_url`));
    else if (typeof part.text === "string" && part.text !== "") blocks.push({ type: "text", text: part.text });
  });
  return blocks;
}

/** Input items (a previous response's first) as Messages turns and system text. */
function turnsOf(items: InputItem[], thinkingOn: boolean): { system: string[]; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  items.forEach((item, index) => {
    const param = `input[${index}]`;
    if (isMessageItem(item)) {
      if (item.role === "system" || item.role === "developer") system.push(textOfParts(item.content));
      else append(turns, item.role, messageBlocks(item, param));
      return;
    }
    switch (item.type) {
      case "function_call": {
        const name = item.namespace ? ClientToolNames.flat(item.namespace, item.name) : item.name;
        append(turns, "assistant", [
          { type: "tool_use", id: item.call_id, name, input: parseArguments(item.arguments, `${param}.arguments`) },
        ]);
        return;
      }
      case "custom_tool_call":
        append(turns, "assistant", [{ type: "tool_use", id: item.call_id, name: item.name, input: { input: item.input } }]);
        return;
      case "function_call_output":
      case "custom_tool_call_output":
        append(turns, "user", [{ type: "tool_result", tool_use_id: item.call_id, content: textOfParts(item.output) }]);
        return;
      case "reasoning": {
        const thinking = thinkingOn ? decodeThinking(item.encrypted_content) : undefined;
        if (thinking) append(turns, "assistant", [{ type: "thinking", ...thinking }]);
        return;
      }
    }
  });
  return { system, turns };
}

type FunctionTool = { name: string; description?: string | null; parameters?: Record<string, unknown> | null };

function functionTool(fn: FunctionTool, name = fn.name) {
  return {
    name,
    ...(fn.description ? { description: fn.description } : {}),
    input_schema: fn.parameters ?? { type: "object", properties: {} },
  };
}

function toolsOf(request: ResponsesRequest, options: ToMessagesOptions): ResponsesMessagesRequest["tools"] {
  const tools: NonNullable<ResponsesMessagesRequest["tools"]> = [];
  (request.tools ?? []).forEach((tool, index) => {
    if (tool.type === "function") {
      tools.push(functionTool(tool as FunctionTool));
    } else if (tool.type === "namespace") {
      // A group of function tools (Codex's MCP servers and agents): flattened, the calls split back.
      const namespace = tool as { name: string; tools: Array<FunctionTool & { type: string }> };
      namespace.tools.forEach((member, memberIndex) => {
        if (member.type === "function") tools.push(functionTool(member, ClientToolNames.flat(namespace.name, member.name)));
        else
          refuse(options, `tools[${index}].tools[${memberIndex}].type`, `Tools of type '${member.type}' are not supported by this model`);
      });
    } else if (tool.type === "web_search" || tool.type === "web_search_preview") {
      // The client's hosted search runs as Claude's own web search; its calls come back as web_search_call items.
      if (!tools.includes(WEB_SEARCH_TOOL)) tools.push(WEB_SEARCH_TOOL);
    } else if (tool.type === "custom") {
      const custom = tool as { name: string; description?: string | null };
      tools.push({
        name: custom.name,
        ...(custom.description ? { description: custom.description } : {}),
        input_schema: CUSTOM_INPUT_SCHEMA,
      });
    } else if (!options.dropParams) {
      throw invalidRequest(`Tools of type '${tool.type}' are not supported by this model`, `tools[${index}].type`, "unsupported_parameter");
    }
  });
  return tools.length > 0 ? tools : undefined;
}

function toolChoiceOf(request: ResponsesRequest): ResponsesMessagesRequest["tool_choice"] {
  const choice = request.tool_choice;
  const parallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === null || choice === undefined) return request.parallel_tool_calls === false ? { type: "auto", ...parallel } : undefined;
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return { type: "auto", ...parallel };
  if (choice === "required") return { type: "any", ...parallel };
  return { type: "tool", name: choice.name, ...parallel };
}

/** A parameter Claude has no equivalent for: a 400 naming it, or left out with `dropParams`. */
function refuse(options: ToMessagesOptions, param: string, message: string): void {
  if (!options.dropParams) throw invalidRequest(message, param, "unsupported_parameter");
}

/**
 * A Responses API request (with the items of the response it continues) as a Messages API
 * request: `instructions` and system/developer items → `system`, function and custom tool calls
 * and outputs → `tool_use`/`tool_result` blocks, `reasoning.effort` → extended thinking.
 *
 * @example
 * toMessages({ model: "claude-sonnet-4-5", input: "Hi" }, [], { defaultMaxTokens: 4096, dropParams: false });
 */
export function toMessages(request: ResponsesRequest, history: InputItem[], options: ToMessagesOptions): Translation {
  const effort = request.reasoning?.effort;
  const budget = effort ? THINKING_BUDGET[effort] : undefined;
  const maxTokens = request.max_output_tokens ?? Math.max(options.defaultMaxTokens, (budget ?? 0) + options.defaultMaxTokens);
  const thinkingOn = budget !== undefined && maxTokens > 1_024;
  const input: InputItem[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : (request.input ?? []);
  const { system, turns } = turnsOf([...history, ...input], thinkingOn);
  if (turns.length === 0) throw invalidRequest("The input must contain at least one user message", "input");
  const toolNames = ClientToolNames.of(request.tools);
  const result: ResponsesMessagesRequest = { model: request.model, max_tokens: maxTokens, messages: turns };
  const instructions = [request.instructions ?? "", ...system].filter((text) => text !== "");
  if (instructions.length > 0) result.system = instructions.join("\n\n");
  if (thinkingOn) {
    result.thinking = { type: "enabled", budget_tokens: Math.min(budget, maxTokens - 1) };
    if (request.temperature !== null && request.temperature !== undefined)
      refuse(options, "temperature", "temperature cannot be set together with reasoning.effort for this model");
  } else {
    if (request.temperature !== null && request.temperature !== undefined) result.temperature = Math.min(request.temperature, 1);
    if (request.top_p !== null && request.top_p !== undefined) result.top_p = request.top_p;
  }
  const format = request.text?.format as { type: string; schema?: Record<string, unknown> } | undefined;
  // A JSON Schema becomes Claude's structured output; plain JSON mode has no schema to give it.
  if (format?.type === "json_schema" && format.schema) result.output_config = structuredOutputOf(format.schema);
  else if (format !== undefined && format.type !== "text")
    refuse(options, "text.format", `text.format of type '${format.type}' is not supported by this model (json_schema with a schema is)`);
  const tools = toolsOf(request, options);
  if (tools) {
    result.tools = tools;
    const choice = toolChoiceOf(request);
    if (choice) result.tool_choice = choice;
  }
  if (request.stream) result.stream = true;
  if (request.user) result.metadata = { user_id: request.user };
  return { request: result, toolNames };
}
