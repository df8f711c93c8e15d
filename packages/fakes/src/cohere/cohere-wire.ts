import type { ModelTurn } from "../model-turn.js";
import { type VendorCall, turnUsage } from "../vendor-fake.js";

/** Cohere's v2 chat wire: the chat body, its SSE stream events, usage with billed units. */

function usage(turn: ModelTurn) {
  const counts = turnUsage(turn);
  return {
    billed_units: { input_tokens: counts.input, output_tokens: counts.output },
    tokens: { input_tokens: counts.input, output_tokens: counts.output },
    ...(counts.cacheRead ? { cached_tokens: counts.cacheRead } : {}),
  };
}

function toolCallOf(turn: ModelTurn) {
  const call = turn.toolCall;
  return call && { id: call.id ?? "call_1", type: "function", function: { name: call.name, arguments: JSON.stringify(call.input) } };
}

/** The `POST /v2/chat` answer of a turn. */
export function cohereBody(turn: ModelTurn): unknown {
  const toolCall = toolCallOf(turn);
  return {
    id: "fake-cohere-chat",
    finish_reason: toolCall ? "TOOL_CALL" : "COMPLETE",
    message: toolCall
      ? { role: "assistant", tool_plan: "I will call the tool.", tool_calls: [toolCall] }
      : { role: "assistant", content: [{ type: "text", text: (turn.text ?? []).join("") }] },
    usage: usage(turn),
  };
}

/** The stream of a turn: `event: <type>` / `data: {type, …}` frames, as `POST /v2/chat` with `stream: true` sends them. */
export function cohereFrames(turn: ModelTurn, _call: VendorCall): string[][] {
  const frame = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const groups: string[][] = [[frame({ type: "message-start", id: "fake-cohere-chat", delta: { message: { role: "assistant" } } })]];
  const toolCall = toolCallOf(turn);
  if (toolCall) {
    groups.push([
      frame({ type: "tool-plan-delta", delta: { message: { tool_plan: "I will call the tool." } } }),
      frame({
        type: "tool-call-start",
        index: 0,
        delta: { message: { tool_calls: { ...toolCall, function: { name: toolCall.function.name, arguments: "" } } } },
      }),
      frame({
        type: "tool-call-delta",
        index: 0,
        delta: { message: { tool_calls: { function: { arguments: toolCall.function.arguments } } } },
      }),
      frame({ type: "tool-call-end", index: 0 }),
    ]);
  } else {
    groups[0]?.push(frame({ type: "content-start", index: 0, delta: { message: { content: { type: "text", text: "" } } } }));
    for (const text of turn.text ?? [])
      groups.push([frame({ type: "content-delta", index: 0, delta: { message: { content: { text } } } })]);
  }
  if (turn.cut) return groups;
  groups.push([
    ...(toolCall ? [] : [frame({ type: "content-end", index: 0 })]),
    frame({ type: "message-end", delta: { finish_reason: toolCall ? "TOOL_CALL" : "COMPLETE", usage: usage(turn) } }),
  ]);
  return groups;
}

/** The `POST /v2/embed` answer: float vectors by type, billed input tokens. */
export function cohereEmbeddings(body: Record<string, unknown>): unknown {
  const texts = (body.texts ?? []) as string[];
  return {
    id: "fake-cohere-embed",
    response_type: "embeddings_by_type",
    embeddings: { float: texts.map((_, index) => [index, 1, 0.5]) },
    texts,
    meta: { api_version: { version: "2" }, billed_units: { input_tokens: 3 * texts.length } },
  };
}
