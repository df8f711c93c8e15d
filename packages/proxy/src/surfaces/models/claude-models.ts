/** A Claude model the proxy lists on `/v1/models`, with what Anthropic's list answers carry. */
export interface ClaudeModel {
  id: string;
  displayName: string;
  /** RFC 3339, as Anthropic's `created_at`. */
  createdAt: string;
}

/**
 * The Claude models listed by default (any Claude model id is still relayed, listed or not):
 * the current generation and the aliases clients ask for by default.
 */
export const DEFAULT_CLAUDE_MODELS: readonly ClaudeModel[] = [
  { id: "claude-opus-4-5", displayName: "Claude Opus 4.5", createdAt: "2025-11-24T00:00:00Z" },
  { id: "claude-sonnet-4-5", displayName: "Claude Sonnet 4.5", createdAt: "2025-09-29T00:00:00Z" },
  { id: "claude-haiku-4-5", displayName: "Claude Haiku 4.5", createdAt: "2025-10-15T00:00:00Z" },
  { id: "claude-opus-4-1", displayName: "Claude Opus 4.1", createdAt: "2025-08-05T00:00:00Z" },
  { id: "claude-sonnet-4-0", displayName: "Claude Sonnet 4", createdAt: "2025-05-22T00:00:00Z" },
  { id: "claude-3-5-haiku-latest", displayName: "Claude Haiku 3.5", createdAt: "2024-10-22T00:00:00Z" },
];
