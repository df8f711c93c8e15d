import type { TextSlot } from "./json-texts.js";

type Container = Record<string, unknown> | unknown[];

/** A slot for `container[key]` when it is a non-empty string. */
function slotOf(container: Container, key: string | number): TextSlot[] {
  const value = (container as Record<string | number, unknown>)[key];
  if (typeof value !== "string" || value.length === 0) return [];
  return [
    {
      text: value,
      replace: (text) => {
        (container as Record<string | number, unknown>)[key] = text;
      },
    },
  ];
}

/** A conversation turn's texts: its content (a string or text parts; images pass unchecked), a tool result's content, a `useChat` message's text parts. */
function messageSlots(message: unknown): TextSlot[] {
  if (message === null || typeof message !== "object") return [];
  const turn = message as Record<string, unknown>;
  const textParts = (parts: unknown[]) =>
    parts.flatMap((part) =>
      part !== null && typeof part === "object" && (part as Record<string, unknown>).type === "text"
        ? slotOf(part as Container, "text")
        : [],
    );
  // A `useChat` message carries `parts` instead of `content`.
  const parts = Array.isArray(turn.parts) ? textParts(turn.parts) : [];
  return [...(Array.isArray(turn.content) ? textParts(turn.content) : slotOf(turn, "content")), ...parts];
}

/**
 * Every text a model reads in a request of `/api/agent/*`, `/api/ai/*` and the runtime
 * (`GenerateRequest`, embeddings): `input.text`, `prompt`, `system`, the conversation's turns,
 * `text` and `texts`. Images, ids, model names and session ids are not text a model reads.
 *
 * @example
 * for (const slot of workRequestSlots(body)) slot.replace(slot.text.toUpperCase());
 */
export function workRequestSlots(body: unknown): TextSlot[] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [];
  const request = body as Record<string, unknown>;
  const input = request.input;
  return [
    ...(input !== null && typeof input === "object" && !Array.isArray(input) ? slotOf(input as Container, "text") : []),
    ...slotOf(request, "prompt"),
    ...slotOf(request, "system"),
    ...(Array.isArray(request.messages) ? request.messages.flatMap(messageSlots) : []),
    ...slotOf(request, "text"),
    ...(Array.isArray(request.texts) ? request.texts.flatMap((_, index) => slotOf(request.texts as unknown[], index)) : []),
  ];
}
