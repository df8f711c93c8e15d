/**
 * The most output tokens a model answers in one call, as its vendor documents it (with the beta
 * headers that raise it): a request asking for more is refused before it is counted, as the vendor
 * would refuse it. A limit applies to its exact id, or that id with a date or `-latest` suffix —
 * never to a newer model sharing a prefix (`claude-opus-4-6` is not `claude-opus-4`), whose limit
 * may be larger: those are bounded only by `MAX_OUTPUT_TOKENS_LIMIT`.
 *
 * Anthropic: docs.anthropic.com "Models overview" (Claude 3.7 Sonnet: 128K with the
 * `output-128k-2025-02-19` beta); OpenAI: platform.openai.com model pages; both read 2026-12-07.
 */
export const MODEL_OUTPUT_LIMITS: Readonly<Record<string, number>> = {
  "claude-opus-4-5": 64_000,
  "claude-opus-4-1": 32_000,
  "claude-opus-4": 32_000,
  "claude-sonnet-4-5": 64_000,
  "claude-sonnet-4": 64_000,
  "claude-3-7-sonnet": 128_000,
  "claude-haiku-4-5": 64_000,
  "claude-3-5-haiku": 8_192,
  "claude-3-5-sonnet": 8_192,
  "claude-3-haiku": 4_096,
  "claude-3-opus": 4_096,
  "gpt-5": 128_000,
  "gpt-5-mini": 128_000,
  "gpt-5-nano": 128_000,
  "gpt-4.1": 32_768,
  "gpt-4.1-mini": 32_768,
  "gpt-4.1-nano": 32_768,
  "gpt-4o": 16_384,
  "gpt-4o-mini": 16_384,
  "o4-mini": 100_000,
};

/** A dated release (`-20250929`, `-2024-08-06`), `-latest`, or Vertex's `@20250929`. */
const RELEASE_SUFFIX = /^(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$/;

/**
 * The output limit of a model id (`claude-haiku-4-5-20251001`, `openai/gpt-4o`), or undefined
 * when the table does not know that exact model.
 *
 * @example
 * outputLimitOf("claude-3-5-haiku-latest"); // 8192
 * outputLimitOf("claude-opus-4-6"); // undefined: not a release of a known model
 */
export function outputLimitOf(model: string, table: Readonly<Record<string, number>> = MODEL_OUTPUT_LIMITS): number | undefined {
  const id = model.slice(model.lastIndexOf("/") + 1);
  const exact = table[id];
  if (exact !== undefined) return exact;
  for (const [known, limit] of Object.entries(table)) if (id.startsWith(known) && RELEASE_SUFFIX.test(id.slice(known.length))) return limit;
  return undefined;
}
