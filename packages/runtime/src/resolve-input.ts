import type { GenerateRequest } from "@conduit-ai/server-core";
import { invalidField } from "./runtime-errors.js";

/** Receives the one-time deprecation notice for the legacy `prompt` call style. */
export type DeprecationWarner = (message: string) => void;

const PROMPT_DEPRECATION = "GenerateRequest.prompt is deprecated; send input: { text } instead.";

/** Process-wide default: Node's own deprecation channel, shown once like any DeprecationWarning. */
export const emitProcessDeprecation: DeprecationWarner = (message) => {
  process.emitWarning(message, { type: "DeprecationWarning", code: "CONDUIT_PROMPT_DEPRECATED" });
};

/**
 * Returns a resolver of the request text: `input.text` first, then the legacy `prompt`
 * (warning once per resolver). Empty or missing text is a 400 naming the field.
 *
 * @example
 * const resolve = createInputResolver(console.warn);
 * resolve({ prompt: "hi" }); // "hi", warns once
 */
export function createInputResolver(warn: DeprecationWarner): (request: GenerateRequest) => string {
  let warned = false;
  return (request) => {
    const usesPrompt = request.input === undefined && request.prompt !== undefined;
    const text = usesPrompt ? request.prompt : request.input?.text;
    if (usesPrompt && !warned) {
      warned = true;
      warn(PROMPT_DEPRECATION);
    }
    if (typeof text !== "string" || text.trim() === "") {
      throw invalidField(usesPrompt ? "prompt" : "input.text", "Input text must be a non-empty string");
    }
    return text;
  };
}
