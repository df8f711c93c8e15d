import { openAIResponsesUsageOf, usageFromAnthropic } from "@conduit-ai/server-core/pricing";
import { randomUUID } from "node:crypto";
import type { VendorUsage } from "../openai-chat/chat-completion-shapes.js";
import type { ResponsesRequest } from "./responses-request-schema.js";

/** An output item of a Response, as the `openai` SDK types them. */
export type OutputItem =
  | {
      type: "message";
      id: string;
      status: "completed" | "in_progress" | "incomplete";
      role: "assistant";
      content: Array<{ type: "output_text"; text: string; annotations: []; logprobs?: [] }>;
    }
  | {
      type: "function_call";
      id: string;
      call_id: string;
      name: string;
      namespace?: string;
      arguments: string;
      status: "completed" | "in_progress";
    }
  | { type: "custom_tool_call"; id: string; call_id: string; name: string; input: string; status?: "completed" | "in_progress" }
  /** A search Claude ran with its web search server tool (the client's hosted `web_search` tool). */
  | { type: "web_search_call"; id: string; status: "completed" | "in_progress"; action: { type: "search"; query: string } }
  | { type: "reasoning"; id: string; summary: Array<{ type: "summary_text"; text: string }>; encrypted_content?: string | null };

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = "completed" | "incomplete" | "in_progress" | "failed";

export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: string | null; summary: string | null };
  store: boolean;
  temperature: number | null;
  text: { format: { type: string } };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: "disabled";
  usage: ResponsesUsage | null;
  user: string | null;
  metadata: Record<string, string>;
}

/** `resp_…`, `msg_…`, `fc_…`, `rs_…` ids as OpenAI spells them. */
export function newId(prefix: "resp" | "msg" | "fc" | "ctc" | "rs" | "ws"): string {
  return `${prefix}_${randomUUID().replace(/-/g, "")}`;
}

/** Messages API usage as the Responses API counts it: cached tokens inside the input count. */
export function responsesUsageOf(usage: VendorUsage): ResponsesUsage {
  return openAIResponsesUsageOf(usageFromAnthropic(usage));
}

/** The Response envelope for a request, before any output (`status: in_progress`). */
export function responseShell(request: ResponsesRequest, meta: { id: string; createdAt: number; store: boolean }): ResponseObject {
  return {
    id: meta.id,
    object: "response",
    created_at: meta.createdAt,
    status: "in_progress",
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: request.model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: meta.store,
    temperature: request.temperature ?? null,
    text: { format: { type: request.text?.format?.type ?? "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: "disabled",
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

/** `max_tokens` → `incomplete` with its reason; everything else completes. */
export function finalStatus(stopReason: string | null | undefined): Pick<ResponseObject, "status" | "incomplete_details"> {
  if (stopReason === "max_tokens" || stopReason === "model_context_window_exceeded")
    return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (stopReason === "refusal") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

/**
 * Claude's signed thinking travels through the client as a reasoning item's `encrypted_content`
 * (what Codex and the SDKs send back with `include: ["reasoning.encrypted_content"]`), so a
 * later turn can hand the thinking block back to the Messages API intact.
 */
export function encodeThinking(thinking: string, signature: string): string {
  return Buffer.from(JSON.stringify({ thinking, signature }), "utf8").toString("base64");
}

export function decodeThinking(encrypted: string | null | undefined): { thinking: string; signature: string } | undefined {
  if (!encrypted) return undefined;
  try {
    const value = JSON.parse(Buffer.from(encrypted, "base64").toString("utf8")) as { thinking?: unknown; signature?: unknown };
    if (typeof value.thinking === "string" && typeof value.signature === "string")
      return { thinking: value.thinking, signature: value.signature };
  } catch {
    // Not ours (another vendor's opaque reasoning): dropped, as it cannot be replayed to Claude.
  }
  return undefined;
}
