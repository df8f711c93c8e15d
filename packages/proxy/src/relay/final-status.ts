/** Client errors that a retry cannot fix: the SDKs (Anthropic's, OpenAI's, Claude Code) stop at once on `x-should-retry: false`. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 413]);

/**
 * `x-should-retry: false` for a final client error, nothing otherwise (the SDKs then decide by status).
 *
 * @example
 * headers: { ...retryHint(401), "content-type": "application/json" }
 */
export function retryHint(status: number): Record<string, string> {
  return FINAL_STATUSES.has(status) ? { "x-should-retry": "false" } : {};
}
