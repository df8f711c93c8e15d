import { randomUUID } from "node:crypto";
import { type RawResponse, type Runtime, type RuntimeCallContext, type ToolCallRecord, rawResponse } from "@conduit-ai/server-core";
import { EVENT_STREAM_HEADERS, jsonEventFrame } from "../../surfaces/event-stream.js";
import type { MessagesBody } from "../../wire/anthropic-messages/messages-request.js";
import { runtimeRequestOfMessages } from "../../wire/runtime/from-messages.js";
import { stopReasonOf } from "../../wire/runtime/to-messages-answer.js";

const toolUseOf = (call: ToolCallRecord) => ({ type: "tool_use" as const, id: call.id, name: call.name, input: call.arguments });

/** One Messages API stream event: `event: <type>` and its JSON, which repeats the type. */
const event = (type: string, data: Record<string, unknown>) => jsonEventFrame({ type, ...data }, type);

/**
 * A Messages API request answered by a runtime provider (a Claude model's fallback), in the
 * Messages API's wire format: a `message` JSON, or the `message_start` … `message_stop` stream.
 * Provider failures before an answer are thrown (status kept) so a later target can be tried.
 *
 * @example
 * return respondMessagesWithRuntime(runtime, body, { provider: "local", model: "local-echo" }, context);
 */
export async function respondMessagesWithRuntime(
  runtime: Runtime,
  body: MessagesBody,
  target: { provider: string; model: string },
  context: RuntimeCallContext,
  /** Called once when the answer ended: the tokens the provider reported, or undefined (cut, failed, none reported). */
  onUsage: (usage: RuntimeUsage | undefined) => void = () => {},
): Promise<RawResponse> {
  const request = runtimeRequestOfMessages(body, target);
  const id = `msg_${randomUUID().replace(/-/g, "")}`;
  const model = `${target.provider}/${target.model}`;
  if (!body.stream) {
    const result = await runtime.generate(request, context);
    onUsage(result.usage);
    const content = [
      ...(result.content === "" ? [] : [{ type: "text" as const, text: result.content }]),
      ...result.toolCalls.map(toolUseOf),
    ];
    const message = {
      id,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: stopReasonOf(result.finishReason),
      stop_sequence: null,
      usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens },
    };
    return rawResponse(JSON.stringify(message), { headers: { "content-type": "application/json" } });
  }
  return rawResponse(streamMessages(runtime, request, context, { id, model }, onUsage), { headers: EVENT_STREAM_HEADERS });
}

/** Tokens a runtime call reported. */
export interface RuntimeUsage {
  inputTokens: number;
  outputTokens: number;
}

async function* streamMessages(
  runtime: Runtime,
  request: ReturnType<typeof runtimeRequestOfMessages>,
  context: RuntimeCallContext,
  meta: { id: string; model: string },
  onUsage: (usage: RuntimeUsage | undefined) => void,
): AsyncGenerator<string> {
  let reported: RuntimeUsage | undefined;
  try {
    yield* translateStream(runtime, request, context, meta, (usage) => {
      reported = usage;
    });
  } finally {
    // However the stream ended (finished, failed, the client gone): once.
    onUsage(reported);
  }
}

async function* translateStream(
  runtime: Runtime,
  request: ReturnType<typeof runtimeRequestOfMessages>,
  context: RuntimeCallContext,
  meta: { id: string; model: string },
  onFinish: (usage: RuntimeUsage) => void,
): AsyncGenerator<string> {
  yield event("message_start", {
    message: {
      id: meta.id,
      type: "message",
      role: "assistant",
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    },
  });
  let index = 0;
  let textOpen = false;
  const closeText = (): string[] => {
    if (!textOpen) return [];
    textOpen = false;
    return [event("content_block_stop", { index: index++ })];
  };
  try {
    for await (const part of runtime.stream(request, context)) {
      const data = part.data as {
        delta?: string;
        reason?: string;
        usage?: { inputTokens: number; outputTokens: number };
        message?: string;
      };
      if (part.type === "text-delta" && data.delta) {
        if (!textOpen) {
          textOpen = true;
          yield event("content_block_start", { index, content_block: { type: "text", text: "" } });
        }
        yield event("content_block_delta", { index, delta: { type: "text_delta", text: data.delta } });
      } else if (part.type === "tool-call") {
        const call = part.data as ToolCallRecord;
        yield* closeText();
        yield event("content_block_start", { index, content_block: { ...toolUseOf(call), input: {} } });
        yield event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.arguments) } });
        yield event("content_block_stop", { index: index++ });
      } else if (part.type === "error") {
        yield event("error", { error: { type: "api_error", message: data.message ?? "The provider failed" } });
        return;
      } else if (part.type === "finish") {
        yield* closeText();
        const usage = { input_tokens: data.usage?.inputTokens ?? 0, output_tokens: data.usage?.outputTokens ?? 0 };
        if (data.usage) onFinish({ inputTokens: data.usage.inputTokens, outputTokens: data.usage.outputTokens });
        yield event("message_delta", { delta: { stop_reason: stopReasonOf(data.reason), stop_sequence: null }, usage });
        yield event("message_stop", {});
        return;
      }
    }
    yield event("error", { error: { type: "api_error", message: "The provider stream ended before it finished" } });
  } catch (error) {
    yield event("error", { error: { type: "api_error", message: (error as Error).message || "The provider failed" } });
  }
}
