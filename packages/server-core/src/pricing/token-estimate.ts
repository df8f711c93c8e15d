/**
 * Characters (or bytes of JSON) per token in the rough estimate Conduit reserves budgets with
 * and reports before a model has counted: English text and JSON average about four. A
 * reservation errs high and settles to the vendor's real count afterwards.
 */
export const CHARACTERS_PER_TOKEN = 4;

/**
 * The rough token count of a text, or of a length in characters or bytes: one token per
 * `CHARACTERS_PER_TOKEN`, rounded up. The one estimator of the workspace; exact counts come from
 * the vendor's usage (or a tokenizer, where a route promises one).
 *
 * @example
 * estimateTokens("Hello, world"); // 3
 * estimateTokens(Buffer.byteLength(body)); // a reservation's input estimate
 */
export function estimateTokens(textOrLength: string | number): number {
  const length = typeof textOrLength === "string" ? textOrLength.length : textOrLength;
  return Math.ceil(Math.max(0, length) / CHARACTERS_PER_TOKEN);
}
