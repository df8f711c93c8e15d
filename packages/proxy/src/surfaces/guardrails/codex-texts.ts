type Json = Record<string, unknown>;

/**
 * One kind of model text a Responses stream carries in deltas: the event its deltas come in, the
 * event that repeats it whole (and that event's field), the index that tells two texts of one
 * output item apart, and the delta type the stream guard scans it as (tool input and reasoning
 * are model text as much as the answer's own: a secret in them leaks all the same).
 */
export interface CodexTextKind {
  name: "output_text" | "reasoning_text" | "reasoning_summary" | "function_arguments" | "custom_tool_input";
  delta: string;
  done: string;
  doneField: "text" | "arguments" | "input";
  subIndex?: "content_index" | "summary_index";
  deltaType: "text_delta" | "thinking_delta" | "input_json_delta";
}

export const CODEX_TEXT_KINDS: readonly CodexTextKind[] = [
  {
    name: "output_text",
    delta: "response.output_text.delta",
    done: "response.output_text.done",
    doneField: "text",
    subIndex: "content_index",
    deltaType: "text_delta",
  },
  {
    name: "reasoning_text",
    delta: "response.reasoning_text.delta",
    done: "response.reasoning_text.done",
    doneField: "text",
    subIndex: "content_index",
    deltaType: "thinking_delta",
  },
  {
    name: "reasoning_summary",
    delta: "response.reasoning_summary_text.delta",
    done: "response.reasoning_summary_text.done",
    doneField: "text",
    subIndex: "summary_index",
    deltaType: "thinking_delta",
  },
  {
    name: "function_arguments",
    delta: "response.function_call_arguments.delta",
    done: "response.function_call_arguments.done",
    doneField: "arguments",
    deltaType: "input_json_delta",
  },
  {
    name: "custom_tool_input",
    delta: "response.custom_tool_call_input.delta",
    done: "response.custom_tool_call_input.done",
    doneField: "input",
    deltaType: "input_json_delta",
  },
];

export const kindOfDelta = new Map(CODEX_TEXT_KINDS.map((kind) => [kind.delta, kind]));
export const kindOfDone = new Map(CODEX_TEXT_KINDS.map((kind) => [kind.done, kind]));

/** Where one text sits in the answer: its kind, output item and index inside that item. */
export const textKey = (kind: CodexTextKind["name"], outputIndex: unknown, subIndex: unknown) =>
  `${kind}:${String(outputIndex)}:${String(subIndex ?? 0)}`;

/** The text of `key` as the client got it; undefined when no delta of it was guarded. */
export type ReleasedText = (key: string) => string | undefined;

/** An output item (of `response.output_item.done` or `response.completed`) with every guarded text as the client got it. */
export function itemWithReleased(item: Json, outputIndex: unknown, textOf: ReleasedText): Json {
  const out: Json = { ...item };
  const parts = (list: unknown, kinds: Record<string, CodexTextKind["name"]>) =>
    Array.isArray(list)
      ? list.map((part: Json, index: number) => {
          const kind = kinds[String(part?.type)];
          const text = kind ? textOf(textKey(kind, outputIndex, index)) : undefined;
          return text === undefined ? part : { ...part, text };
        })
      : list;
  if ("content" in item) out.content = parts(item.content, { output_text: "output_text", reasoning_text: "reasoning_text" });
  if ("summary" in item) out.summary = parts(item.summary, { summary_text: "reasoning_summary" });
  const argumentsText = item.type === "function_call" ? textOf(textKey("function_arguments", outputIndex, 0)) : undefined;
  if (argumentsText !== undefined) out.arguments = argumentsText;
  const input = item.type === "custom_tool_call" ? textOf(textKey("custom_tool_input", outputIndex, 0)) : undefined;
  if (input !== undefined) out.input = input;
  return out;
}

/** An event that repeats a guarded text whole, carrying the text the client got; undefined when it repeats none. */
export function eventWithReleased(data: Json, textOf: ReleasedText): Json | undefined {
  const type = String(data.type);
  const done = kindOfDone.get(type);
  if (done) {
    const text = textOf(textKey(done.name, data.output_index, done.subIndex ? data[done.subIndex] : 0));
    return text === undefined ? undefined : { ...data, [done.doneField]: text };
  }
  const part = data.part as Json | undefined;
  if ((type === "response.content_part.done" || type === "response.reasoning_summary_part.done") && part && typeof part === "object") {
    const inContent = type === "response.content_part.done";
    const kinds: Record<string, CodexTextKind["name"]> = inContent
      ? { output_text: "output_text", reasoning_text: "reasoning_text" }
      : { summary_text: "reasoning_summary" };
    const kind = kinds[String(part.type)];
    const text = kind ? textOf(textKey(kind, data.output_index, inContent ? data.content_index : data.summary_index)) : undefined;
    return text === undefined ? undefined : { ...data, part: { ...part, text } };
  }
  if (type === "response.output_item.done" && data.item && typeof data.item === "object")
    return { ...data, item: itemWithReleased(data.item as Json, data.output_index, textOf) };
  if ((type === "response.completed" || type === "response.incomplete") && data.response && typeof data.response === "object") {
    const response = data.response as Json;
    const output = Array.isArray(response.output)
      ? response.output.map((item: Json, index: number) => itemWithReleased(item, index, textOf))
      : response.output;
    return { ...data, response: { ...response, output } };
  }
  return undefined;
}
