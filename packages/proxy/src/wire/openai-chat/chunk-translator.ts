import { type ChatUsage, type FinishReason, type VendorUsage, chatUsageOf, finishReasonOf } from "./chat-completion-shapes.js";
import type { OpenAIErrorBody } from "./openai-wire-error.js";

export interface ChatChunkDelta {
  role?: "assistant";
  content?: string;
  tool_calls?: Array<{ index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } }>;
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: Array<{ index: 0; delta: ChatChunkDelta; logprobs: null; finish_reason: FinishReason | null }>;
  usage?: ChatUsage | null;
}

/** What one upstream event turns into: chunks to send, an error to end with, or the end. */
export type TranslatedEvent =
  | { type: "chunk"; chunk: ChatCompletionChunk }
  /** A content delta already serialized (the hot path of a stream). */
  | { type: "json"; json: string }
  | { type: "error"; error: OpenAIErrorBody }
  | { type: "done" };

interface VendorEventData {
  type?: string;
  index?: number;
  message?: { model?: string; usage?: VendorUsage };
  content_block?: { type?: string; id?: string; name?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: VendorUsage;
  error?: { type?: string; message?: string };
}

/**
 * Turns the Messages API's stream events into `chat.completion.chunk`s, one id for all: the role
 * first, text deltas as `content`, each `tool_use` block as a tool call of its own index whose
 * argument fragments follow, the finish chunk at `message_stop`, then the usage chunk if asked.
 *
 * @example
 * const translator = new ChunkTranslator({ id, created, model, includeUsage: true });
 * for (const out of translator.translate("content_block_delta", data)) send(out);
 */
export class ChunkTranslator {
  private readonly toolIndexByBlock = new Map<number, number>();
  private usage: VendorUsage = {};
  private finishReason: FinishReason = "stop";
  private model: string;
  private started = false;
  /** A content chunk's JSON around its text, built once per model: deltas only stringify their text. */
  private contentFrame: { model: string; prefix: string; suffix: string } | undefined;
  finished = false;

  constructor(private readonly meta: { id: string; created: number; model: string; includeUsage: boolean }) {
    this.model = meta.model;
  }

  translate(eventName: string, data: VendorEventData): TranslatedEvent[] {
    switch (eventName) {
      case "message_start":
        if (data.message?.model) this.model = data.message.model;
        this.usage = { ...data.message?.usage };
        return this.start();
      case "content_block_start":
        return this.blockStart(data);
      case "content_block_delta":
        return this.blockDelta(data);
      case "message_delta":
        if (data.delta?.stop_reason !== undefined) this.finishReason = finishReasonOf(data.delta.stop_reason);
        // The final counts arrive here; keep message_start's input counts where this omits them.
        this.usage = { ...this.usage, ...withoutNulls(data.usage) };
        return [];
      case "message_stop":
        return this.finish();
      case "error": {
        this.finished = true;
        const error: TranslatedEvent = {
          type: "error",
          error: {
            error: {
              message: data.error?.message ?? "Upstream stream error",
              type: vendorErrorType(data.error?.type),
              param: null,
              code: data.error?.type ?? null,
            },
          },
        };
        // A guardrail's block is a decision, not a broken stream: the error chunk, then `[DONE]` as a finished stream ends.
        return data.error?.type === "guardrail_violation" ? [error, { type: "done" }] : [error];
      }
      default:
        // ping, content_block_stop, thinking and signature deltas have no Chat Completions form.
        return [];
    }
  }

  private chunk(delta: ChatChunkDelta, finishReason: FinishReason | null = null): TranslatedEvent {
    const chunk: ChatCompletionChunk = {
      id: this.meta.id,
      object: "chat.completion.chunk",
      created: this.meta.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    if (this.meta.includeUsage) chunk.usage = null;
    return { type: "chunk", chunk };
  }

  private contentJson(text: string): string {
    if (this.contentFrame?.model !== this.model) {
      const marker = '"\\u0000"';
      const skeleton = JSON.stringify((this.chunk({ content: "\u0000" }) as { chunk: ChatCompletionChunk }).chunk);
      // The content is the last string of the chunk: id and model come before it.
      const at = skeleton.lastIndexOf(marker);
      this.contentFrame = { model: this.model, prefix: skeleton.slice(0, at), suffix: skeleton.slice(at + marker.length) };
    }
    return this.contentFrame.prefix + JSON.stringify(text) + this.contentFrame.suffix;
  }

  private start(): TranslatedEvent[] {
    if (this.started) return [];
    this.started = true;
    return [this.chunk({ role: "assistant", content: "" })];
  }

  private blockStart(data: VendorEventData): TranslatedEvent[] {
    const block = data.content_block;
    if (block?.type !== "tool_use" || data.index === undefined) return [];
    const toolIndex = this.toolIndexByBlock.size;
    this.toolIndexByBlock.set(data.index, toolIndex);
    return [
      ...this.start(),
      this.chunk({
        tool_calls: [{ index: toolIndex, id: block.id ?? "", type: "function", function: { name: block.name ?? "", arguments: "" } }],
      }),
    ];
  }

  private blockDelta(data: VendorEventData): TranslatedEvent[] {
    const delta = data.delta;
    if (delta?.type === "text_delta" && delta.text) return [...this.start(), { type: "json", json: this.contentJson(delta.text) }];
    if (delta?.type === "input_json_delta" && delta.partial_json) {
      const toolIndex = data.index === undefined ? undefined : this.toolIndexByBlock.get(data.index);
      if (toolIndex === undefined) return [];
      return [this.chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] })];
    }
    return [];
  }

  private finish(): TranslatedEvent[] {
    if (this.finished) return [];
    this.finished = true;
    const out = [...this.start(), this.chunk({}, this.finishReason)];
    if (this.meta.includeUsage) {
      out.push({
        type: "chunk",
        chunk: {
          id: this.meta.id,
          object: "chat.completion.chunk",
          created: this.meta.created,
          model: this.model,
          choices: [],
          usage: chatUsageOf(this.usage),
        },
      });
    }
    out.push({ type: "done" });
    return out;
  }
}

function withoutNulls(usage: VendorUsage | undefined): VendorUsage {
  const kept: Record<string, number> = {};
  for (const [key, value] of Object.entries(usage ?? {})) if (typeof value === "number") kept[key] = value;
  return kept;
}

/** Upstream's error type as OpenAI's: failures of the upstream (overloaded, broken streams) are OpenAI's `server_error`. */
function vendorErrorType(type: string | undefined): string {
  if (type === "overloaded_error" || type === "api_error" || type === "upstream_stream_error" || type === undefined) return "server_error";
  return type;
}
