import type { VendorUsage } from "../openai-chat/chat-completion-shapes.js";
import type { ClientToolNames } from "./client-tool-names.js";
import { type OutputItem, type ResponseObject, encodeThinking, finalStatus, newId, responsesUsageOf } from "./response-object.js";

interface VendorMessage {
  model?: string;
  content?: Array<{ type: string; text?: string; id?: string; name?: string; input?: unknown; thinking?: string; signature?: string }>;
  stop_reason?: string | null;
  usage?: VendorUsage;
}

/** One `tool_use` block as the output item the client declared it as (function or custom tool). */
export function toolCallItem(block: { id?: string; name?: string; input?: unknown }, toolNames: ClientToolNames): OutputItem {
  const name = block.name ?? "";
  if (toolNames.isCustom(name)) {
    const input = (block.input as { input?: unknown } | undefined)?.input;
    return { type: "custom_tool_call", id: newId("ctc"), call_id: block.id ?? "", name, input: typeof input === "string" ? input : "" };
  }
  return {
    type: "function_call",
    id: newId("fc"),
    call_id: block.id ?? "",
    ...toolNames.callOf(name),
    arguments: JSON.stringify(block.input ?? {}),
    status: "completed",
  };
}

/** Claude's web search (a `server_tool_use` block) as the Responses API's `web_search_call` item. */
export function webSearchItem(input: unknown): OutputItem {
  const query = (input as { query?: unknown } | undefined)?.query;
  return {
    type: "web_search_call",
    id: newId("ws"),
    status: "completed",
    action: { type: "search", query: typeof query === "string" ? query : "" },
  };
}

/**
 * A Messages API answer as the output of a Response: consecutive text blocks → one assistant
 * `message` item, `tool_use` → `function_call` (or `custom_tool_call`), a web search (server
 * tool) → `web_search_call` (its results stay in Claude's text), signed thinking →
 * a `reasoning` item whose `encrypted_content` carries it back on the next turn.
 *
 * @example
 * fromMessages(await upstream.json(), shell, new ClientToolNames());
 */
export function fromMessages(message: VendorMessage, shell: ResponseObject, toolNames: ClientToolNames): ResponseObject {
  const output: OutputItem[] = [];
  let text: Extract<OutputItem, { type: "message" }> | undefined;
  for (const block of message.content ?? []) {
    if (block.type === "text") {
      if (!text) {
        text = { type: "message", id: newId("msg"), status: "completed", role: "assistant", content: [] };
        output.push(text);
      }
      text.content.push({ type: "output_text", text: block.text ?? "", annotations: [] });
      continue;
    }
    text = undefined;
    if (block.type === "tool_use") output.push(toolCallItem(block, toolNames));
    else if (block.type === "server_tool_use" && block.name === "web_search") output.push(webSearchItem(block.input));
    else if (block.type === "thinking" && typeof block.signature === "string")
      output.push({
        type: "reasoning",
        id: newId("rs"),
        summary: [{ type: "summary_text", text: block.thinking ?? "" }],
        encrypted_content: encodeThinking(block.thinking ?? "", block.signature),
      });
  }
  return {
    ...shell,
    ...finalStatus(message.stop_reason),
    model: message.model ?? shell.model,
    output,
    usage: responsesUsageOf(message.usage ?? {}),
  };
}
