/**
 * Keys whose strings are not text a model reads or writes: ids, roles, enums, signatures, and
 * images and files (base64 or URLs), which pass unchecked.
 */
const SKIPPED_KEYS = new Set([
  "model",
  "role",
  "type",
  "id",
  "tool_use_id",
  "tool_call_id",
  "call_id",
  "previous_response_id",
  "signature",
  "encrypted_content",
  "media_type",
  "cache_control",
  "source",
  "image_url",
  "file_data",
  "file_id",
  "file_url",
  "image",
  "detail",
  "format",
  "metadata",
  "service_tier",
  "reasoning_effort",
  "stop_reason",
  "finish_reason",
  "tool_choice",
  "input_schema",
  "parameters",
  "response_format",
  "encoding_format",
  "truncation",
]);

/** A string inside a JSON value, and how to replace it there. */
export interface TextSlot {
  text: string;
  replace(text: string): void;
}

/** A string found in a container (an object's key or an array's index): one object per text, no closure. */
class JsonTextSlot implements TextSlot {
  constructor(
    readonly text: string,
    private readonly container: Record<string | number, unknown>,
    private readonly key: string | number,
  ) {}

  replace(text: string): void {
    this.container[this.key] = text;
  }
}

function visit(container: Record<string | number, unknown>, key: string | number, slots: TextSlot[]): void {
  const item = container[key];
  if (typeof item === "string") {
    if (item.length > 0) slots.push(new JsonTextSlot(item, container, key));
  } else if (Array.isArray(item))
    for (let index = 0; index < item.length; index++) visit(item as unknown as Record<number, unknown>, index, slots);
  else if (item !== null && typeof item === "object")
    for (const child of Object.keys(item)) if (!SKIPPED_KEYS.has(child)) visit(item as Record<string, unknown>, child, slots);
}

/**
 * Every text inside a parsed JSON body (messages, system prompts, tool arguments and results,
 * Responses items, embeddings input), skipping ids, enums, images and files.
 *
 * @example
 * for (const slot of textSlotsOf(body)) slot.replace(slot.text.toUpperCase());
 */
export function textSlotsOf(value: unknown): TextSlot[] {
  const slots: TextSlot[] = [];
  visit({ root: value }, "root", slots);
  return slots;
}
