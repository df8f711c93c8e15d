/** What a scripted codex answer streams, each text as the deltas it arrives in. */
export interface CodexAnswerParts {
  /** A reasoning item's summary text (`response.reasoning_summary_text.delta`). */
  reasoningSummary?: string[];
  /** A function call's arguments (`response.function_call_arguments.delta`), a JSON text split anywhere. */
  functionCall?: { name: string; callId?: string; arguments: string[] };
  /** The assistant message's output text (`response.output_text.delta`). */
  text?: string[];
}

type Event = Record<string, unknown>;

/** One output item's events: added, its deltas, the events repeating its text whole, done. */
function reasoningEvents(index: number, deltas: string[]): Event[] {
  const text = deltas.join("");
  const at = { item_id: "rs_1", output_index: index, summary_index: 0 };
  const part = { type: "summary_text", text };
  const item = { id: "rs_1", type: "reasoning", summary: [part] };
  return [
    { type: "response.output_item.added", output_index: index, item: { ...item, summary: [] } },
    { type: "response.reasoning_summary_part.added", ...at, part: { ...part, text: "" } },
    ...deltas.map((delta) => ({ type: "response.reasoning_summary_text.delta", ...at, delta })),
    { type: "response.reasoning_summary_text.done", ...at, text },
    { type: "response.reasoning_summary_part.done", ...at, part },
    { type: "response.output_item.done", output_index: index, item },
  ];
}

function functionCallEvents(index: number, call: NonNullable<CodexAnswerParts["functionCall"]>): Event[] {
  const args = call.arguments.join("");
  const item = {
    id: "fc_1",
    type: "function_call",
    status: "completed",
    call_id: call.callId ?? "call_1",
    name: call.name,
    arguments: args,
  };
  const at = { item_id: "fc_1", output_index: index };
  return [
    { type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", arguments: "" } },
    ...call.arguments.map((delta) => ({ type: "response.function_call_arguments.delta", ...at, delta })),
    { type: "response.function_call_arguments.done", ...at, arguments: args },
    { type: "response.output_item.done", output_index: index, item },
  ];
}

function messageEvents(index: number, deltas: string[]): Event[] {
  const text = deltas.join("");
  const part = { type: "output_text", text, annotations: [] };
  const item = { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [part] };
  const at = { item_id: "msg_1", output_index: index, content_index: 0 };
  return [
    { type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } },
    { type: "response.content_part.added", ...at, part: { ...part, text: "" } },
    ...deltas.map((delta) => ({ type: "response.output_text.delta", ...at, delta })),
    { type: "response.output_text.done", ...at, text },
    { type: "response.content_part.done", ...at, part },
    { type: "response.output_item.done", output_index: index, item },
  ];
}

/**
 * A whole Responses API stream as the codex backend sends it for a turn with reasoning and a
 * tool call: `response.created`, then a reasoning item (its summary streamed), a function call
 * (its arguments streamed) and a message (its text streamed), each in the order given with the
 * events that repeat its text whole, and `response.completed` with every item and usage. For
 * `startFakeCodex().reply({ kind: "sse", text: codexAnswerStream(parts) })`.
 *
 * @example
 * codexAnswerStream({ reasoningSummary: ["Mail ada@", "example.com"], functionCall: { name: "send", arguments: ['{"to":"ada@', 'example.com"}'] } });
 */
export function codexAnswerStream(parts: CodexAnswerParts, model = "gpt-5-codex"): string {
  const response = { id: "resp_1", object: "response", created_at: 1_700_000_000, model, status: "in_progress", output: [] as Event[] };
  const items: Event[][] = [];
  if (parts.reasoningSummary) items.push(reasoningEvents(items.length, parts.reasoningSummary));
  if (parts.functionCall) items.push(functionCallEvents(items.length, parts.functionCall));
  if (parts.text) items.push(messageEvents(items.length, parts.text));
  const output = items.map((events) => (events.at(-1) as { item: Event }).item);
  const usage = {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 9,
    output_tokens_details: { reasoning_tokens: 4 },
    total_tokens: 21,
  };
  const events: Event[] = [
    { type: "response.created", response },
    ...items.flat(),
    { type: "response.completed", response: { ...response, status: "completed", output, usage } },
  ];
  return events
    .map((event, sequence) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`)
    .join("");
}
