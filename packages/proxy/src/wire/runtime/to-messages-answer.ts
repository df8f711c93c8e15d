import { randomUUID } from "node:crypto";
import type { DataStreamEvent, GenerateResult, TokenUsage, ToolCallRecord } from "@conduit-ai/server-core";
import { type MeteredUsage, anthropicUsageOf, usageFromTokenUsage } from "@conduit-ai/server-core/pricing";
import type { MessageObject, MessagesStreamEvent } from "../anthropic-messages/messages-answer.js";

// The answer half of a call a runtime provider serves: its result or its stream turned into the
// Messages API's answer once, whatever surface the client called (the request half is the
// from-*.ts converters beside this file).

/** Tokens a runtime call reported, in the one usage shape. */
export type RuntimeUsage = MeteredUsage;

/**
 * The runtime's finish reason as a Messages `stop_reason`; a provider's content filter is the
 * Messages API's `refusal` (chat completions then say `content_filter`, as they always did).
 */
export function stopReasonOf(reason: string | undefined): "end_turn" | "max_tokens" | "tool_use" | "refusal" {
  if (reason === "tool-calls") return "tool_use";
  if (reason === "content-filter") return "refusal";
  return reason === "length" || reason === "max-tokens" ? "max_tokens" : "end_turn";
}

/** `msg_…`, as the Messages API spells its ids. */
export function newMessageId(): string {
  return `msg_${randomUUID().replace(/-/g, "")}`;
}

const toolUseOf = (call: ToolCallRecord) => ({ type: "tool_use" as const, id: call.id, name: call.name, input: call.arguments });

/**
 * A runtime result as a Messages `message`: its text (when there is any), then each tool call as
 * a `tool_use` block.
 *
 * @example
 * messageOfResult(await runtime.generate(request), { id: newMessageId(), model: "local/echo" });
 */
export function messageOfResult(result: GenerateResult, meta: { id: string; model: string }): MessageObject {
  return {
    id: meta.id,
    type: "message",
    role: "assistant",
    model: meta.model,
    content: [...(result.content === "" ? [] : [{ type: "text" as const, text: result.content }]), ...result.toolCalls.map(toolUseOf)],
    stop_reason: stopReasonOf(result.finishReason),
    stop_sequence: null,
    usage: anthropicUsageOf(usageFromTokenUsage(result.usage)),
  };
}

const providerError = (message: string): MessagesStreamEvent => ({ type: "error", error: { type: "api_error", message } });

/**
 * A runtime stream as Messages events, one runtime event at a time: `message_start` first, text
 * deltas in a text block, each tool call a `tool_use` block of its own (its arguments in one
 * `input_json_delta`), then `message_delta` with the stop reason and usage and `message_stop`.
 * A provider failure, a stream that ends before its finish or one that throws ends with `error`.
 *
 * @example
 * const translator = new RuntimeStreamTranslator({ id: newMessageId(), model: "local/echo" });
 * send(translator.start());
 * for await (const event of runtime.stream(request)) send(translator.translate(event));
 */
export class RuntimeStreamTranslator {
  /** True once `message_stop` or `error` was produced. */
  finished = false;
  /** The tokens the provider reported with its finish; undefined before (or when it never did). */
  usage: RuntimeUsage | undefined;
  private index = 0;
  private textOpen = false;

  constructor(private readonly meta: { id: string; model: string }) {}

  start(): MessagesStreamEvent[] {
    const message: MessageObject = {
      id: this.meta.id,
      type: "message",
      role: "assistant",
      model: this.meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return [{ type: "message_start", message }];
  }

  translate(event: DataStreamEvent): MessagesStreamEvent[] {
    const data = event.data as { delta?: string; reason?: string; usage?: TokenUsage; message?: string };
    switch (event.type) {
      case "text-delta": {
        if (!data.delta) return [];
        const delta: MessagesStreamEvent = {
          type: "content_block_delta",
          index: this.index,
          delta: { type: "text_delta", text: data.delta },
        };
        if (this.textOpen) return [delta];
        this.textOpen = true;
        return [{ type: "content_block_start", index: this.index, content_block: { type: "text", text: "" } }, delta];
      }
      case "tool-call": {
        const call = event.data as ToolCallRecord;
        const events = this.closeText();
        const index = this.index++;
        events.push(
          { type: "content_block_start", index, content_block: { ...toolUseOf(call), input: {} } },
          { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.arguments) } },
          { type: "content_block_stop", index },
        );
        return events;
      }
      case "error":
        this.finished = true;
        return [providerError(data.message ?? "The provider failed")];
      case "finish": {
        this.finished = true;
        if (data.usage) this.usage = usageFromTokenUsage(data.usage);
        const usage = anthropicUsageOf(this.usage ?? usageFromTokenUsage(undefined));
        return [
          ...this.closeText(),
          { type: "message_delta", delta: { stop_reason: stopReasonOf(data.reason), stop_sequence: null }, usage },
          { type: "message_stop" },
        ];
      }
      default:
        // Text starts and ends, tool results and data parts have no place in the client's answer.
        return [];
    }
  }

  /** The stream ended without its finish. */
  ended(): MessagesStreamEvent[] {
    this.finished = true;
    return [providerError("The provider stream ended before it finished")];
  }

  /** The stream threw. */
  failed(error: unknown): MessagesStreamEvent[] {
    this.finished = true;
    return [providerError((error as Error | undefined)?.message || "The provider failed")];
  }

  /** The open text block's stop, when one is open (its index is then used up). */
  private closeText(): MessagesStreamEvent[] {
    if (!this.textOpen) return [];
    this.textOpen = false;
    return [{ type: "content_block_stop", index: this.index++ }];
  }
}
