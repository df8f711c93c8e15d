import type { ClientToolNames } from "./client-tool-names.js";
import type { VendorUsage } from "../openai-chat/chat-completion-shapes.js";
import { type OutputItem, type ResponseObject, encodeThinking, finalStatus, newId, responsesUsageOf } from "./response-object.js";

interface VendorEventData {
  type?: string;
  index?: number;
  message?: { model?: string; usage?: VendorUsage };
  content_block?: { type?: string; id?: string; name?: string; text?: string; input?: unknown };
  delta?: { type?: string; text?: string; partial_json?: string; thinking?: string; signature?: string; stop_reason?: string | null };
  usage?: VendorUsage;
  error?: { type?: string; message?: string };
}

/** One Responses stream event, before its `sequence_number` is set. */
export type ResponsesEvent = { type: string } & Record<string, unknown>;

/** The item a Messages content block is streaming into. */
interface OpenBlock {
  outputIndex: number;
  item: OutputItem;
  text: string;
  signature: string;
  custom: boolean;
}

/**
 * Turns the Messages API's stream events into the Responses API's: `response.created`, then per
 * content block an output item (`message` with `output_text` deltas, `function_call` with
 * argument deltas, `custom_tool_call`, or `reasoning` with summary deltas) added and done, and
 * `response.completed` (or `response.incomplete`) with the usage at `message_stop`.
 *
 * @example
 * const translator = new ResponsesStreamTranslator(shell, translation.toolNames);
 * for (const event of translator.translate("content_block_delta", data)) send(event);
 */
export class ResponsesStreamTranslator {
  private readonly blocks = new Map<number, OpenBlock>();
  private readonly output: OutputItem[] = [];
  private usage: VendorUsage = {};
  private stopReason: string | null | undefined;
  private response: ResponseObject;
  started = false;
  finished = false;

  constructor(
    shell: ResponseObject,
    private readonly toolNames: ClientToolNames,
  ) {
    this.response = shell;
  }

  /** The response as it stands: final once `finished`. */
  get current(): ResponseObject {
    return this.response;
  }

  /** `response.created` and `response.in_progress`, once. */
  start(): ResponsesEvent[] {
    if (this.started) return [];
    this.started = true;
    return [
      { type: "response.created", response: this.response },
      { type: "response.in_progress", response: this.response },
    ];
  }

  translate(eventName: string, data: VendorEventData): ResponsesEvent[] {
    switch (eventName) {
      case "message_start":
        if (data.message?.model) this.response = { ...this.response, model: data.message.model };
        this.usage = { ...data.message?.usage };
        return this.start();
      case "content_block_start":
        return this.blockStart(data.index ?? 0, data.content_block ?? {});
      case "content_block_delta":
        return this.blockDelta(data.index ?? 0, data.delta ?? {});
      case "content_block_stop":
        return this.blockStop(data.index ?? 0);
      case "message_delta":
        if (data.delta?.stop_reason !== undefined) this.stopReason = data.delta.stop_reason;
        this.usage = { ...this.usage, ...withoutNulls(data.usage) };
        return [];
      case "message_stop":
        return this.finish();
      case "error":
        // A guardrail's block is the response failing, as OpenAI ends a response it stopped.
        if (data.error?.type === "guardrail_violation")
          return [...this.start(), this.failed("guardrail_violation", data.error.message ?? "")];
        // A stream that fails before it started still opens the response the client waits for.
        return [...this.start(), this.failure(data.error?.type ?? "api_error", data.error?.message ?? "Upstream stream error")];
      default:
        return [];
    }
  }

  /** An `error` event ending the stream (the client's SDK raises it). */
  failure(code: string, message: string): ResponsesEvent {
    this.finished = true;
    return { type: "error", code, message, param: null };
  }

  /** `response.failed` with the response's output so far and why (not stored: it never completed). */
  private failed(code: string, message: string): ResponsesEvent {
    this.finished = true;
    return { type: "response.failed", response: { ...this.response, status: "failed", output: this.output, error: { code, message } } };
  }

  private blockStart(index: number, block: NonNullable<VendorEventData["content_block"]>): ResponsesEvent[] {
    const outputIndex = this.output.length;
    let item: OutputItem;
    const custom = block.type === "tool_use" && this.toolNames.isCustom(block.name ?? "");
    if (block.type === "tool_use") {
      item = custom
        ? { type: "custom_tool_call", id: newId("ctc"), call_id: block.id ?? "", name: block.name ?? "", input: "", status: "in_progress" }
        : {
            type: "function_call",
            id: newId("fc"),
            call_id: block.id ?? "",
            ...this.toolNames.callOf(block.name ?? ""),
            arguments: "",
            status: "in_progress",
          };
    } else if (block.type === "server_tool_use" && block.name === "web_search")
      item = { type: "web_search_call", id: newId("ws"), status: "in_progress", action: { type: "search", query: "" } };
    else if (block.type === "thinking") item = { type: "reasoning", id: newId("rs"), summary: [] };
    else if (block.type === "text") item = { type: "message", id: newId("msg"), status: "in_progress", role: "assistant", content: [] };
    else return []; // redacted thinking and search results have no Responses form
    this.output.push(item);
    this.blocks.set(index, { outputIndex, item, text: "", signature: "", custom });
    const events: ResponsesEvent[] = [{ type: "response.output_item.added", output_index: outputIndex, item: structuredClone(item) }];
    const where = { item_id: item.id, output_index: outputIndex };
    if (item.type === "message")
      events.push({
        type: "response.content_part.added",
        ...where,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
    if (item.type === "web_search_call") {
      events.push({ type: "response.web_search_call.in_progress", ...where });
      events.push({ type: "response.web_search_call.searching", ...where });
    }
    if (item.type === "reasoning")
      events.push({ type: "response.reasoning_summary_part.added", ...where, summary_index: 0, part: { type: "summary_text", text: "" } });
    return events;
  }

  private blockDelta(index: number, delta: NonNullable<VendorEventData["delta"]>): ResponsesEvent[] {
    const open = this.blocks.get(index);
    if (!open) return [];
    const where = { item_id: open.item.id, output_index: open.outputIndex };
    if (delta.type === "text_delta" && delta.text) {
      open.text += delta.text;
      return [{ type: "response.output_text.delta", ...where, content_index: 0, delta: delta.text, logprobs: [] }];
    }
    if (delta.type === "input_json_delta" && delta.partial_json) {
      open.text += delta.partial_json;
      // A custom tool's input is one string inside the JSON: it is sent whole when the block ends.
      return open.custom || open.item.type === "web_search_call"
        ? []
        : [{ type: "response.function_call_arguments.delta", ...where, delta: delta.partial_json }];
    }
    if (delta.type === "thinking_delta" && delta.thinking) {
      open.text += delta.thinking;
      return [{ type: "response.reasoning_summary_text.delta", ...where, summary_index: 0, delta: delta.thinking }];
    }
    if (delta.type === "signature_delta" && delta.signature) open.signature += delta.signature;
    return [];
  }

  private blockStop(index: number): ResponsesEvent[] {
    const open = this.blocks.get(index);
    if (!open) return [];
    this.blocks.delete(index);
    const where = { item_id: open.item.id, output_index: open.outputIndex };
    const events: ResponsesEvent[] = [];
    const item = open.item;
    if (item.type === "message") {
      const part = { type: "output_text" as const, text: open.text, annotations: [] as [] };
      item.content.push(part);
      item.status = "completed";
      events.push({ type: "response.output_text.done", ...where, content_index: 0, text: open.text, logprobs: [] });
      events.push({ type: "response.content_part.done", ...where, content_index: 0, part });
    } else if (item.type === "function_call") {
      item.arguments = open.text === "" ? "{}" : open.text;
      item.status = "completed";
      events.push({ type: "response.function_call_arguments.done", ...where, arguments: item.arguments });
    } else if (item.type === "web_search_call") {
      item.action.query = queryOf(open.text);
      item.status = "completed";
      events.push({ type: "response.web_search_call.completed", ...where });
    } else if (item.type === "custom_tool_call") {
      item.input = customInputOf(open.text);
      item.status = "completed";
      events.push({ type: "response.custom_tool_call_input.delta", ...where, delta: item.input });
      events.push({ type: "response.custom_tool_call_input.done", ...where, input: item.input });
    } else {
      const part = { type: "summary_text" as const, text: open.text };
      item.summary.push(part);
      if (open.signature !== "") item.encrypted_content = encodeThinking(open.text, open.signature);
      events.push({ type: "response.reasoning_summary_text.done", ...where, summary_index: 0, text: open.text });
      events.push({ type: "response.reasoning_summary_part.done", ...where, summary_index: 0, part });
    }
    events.push({ type: "response.output_item.done", output_index: open.outputIndex, item: structuredClone(item) });
    return events;
  }

  private finish(): ResponsesEvent[] {
    this.finished = true;
    const status = finalStatus(this.stopReason);
    this.response = { ...this.response, ...status, output: this.output, usage: responsesUsageOf(this.usage) };
    return [{ type: status.status === "completed" ? "response.completed" : "response.incomplete", response: this.response }];
  }
}

function queryOf(json: string): string {
  try {
    const value = JSON.parse(json) as { query?: unknown };
    return typeof value.query === "string" ? value.query : "";
  } catch {
    return "";
  }
}

function customInputOf(json: string): string {
  try {
    const value = JSON.parse(json) as { input?: unknown };
    return typeof value.input === "string" ? value.input : "";
  } catch {
    return "";
  }
}

function withoutNulls(usage: VendorUsage | undefined): VendorUsage {
  const result: VendorUsage = {};
  for (const [key, value] of Object.entries(usage ?? {}))
    if (value !== null && value !== undefined) (result as Record<string, unknown>)[key] = value;
  return result;
}
