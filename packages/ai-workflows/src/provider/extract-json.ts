/**
 * The JSON value in a model's answer: the whole text, else the first fenced block, else the span
 * from the first `{` to the last `}` (models wrap JSON in prose or fences despite instructions).
 */
export function extractJson(text: string): { value: unknown } | { error: string } {
  const candidates = [text.trim()];
  const fenced = /```(?:json|JSON)?\s*\n([\s\S]*?)```/.exec(text);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  let firstError = "empty answer";
  for (const candidate of candidates) {
    if (candidate === "") continue;
    try {
      return { value: JSON.parse(candidate) };
    } catch (error) {
      if (firstError === "empty answer") firstError = `not JSON: ${(error as Error).message}`;
    }
  }
  return { error: firstError };
}
