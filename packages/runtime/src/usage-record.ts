import type { TokenUsage } from "@conduit-ai/server-core";

/**
 * One generation's consumption, reported when it ends — also when the client went away
 * mid-stream, since the provider already spent tokens on it (quota, cost, accounting).
 */
export interface UsageRecord {
  provider: string;
  model: string;
  sessionId?: string;
  requestId?: string;
  /** `finish`: completed; `error`: failed (provider error, cut); `aborted`: the caller's signal ended it. */
  outcome: "finish" | "error" | "aborted";
  /** The provider's count; zeros when it never sent one (a stream cut or aborted before its usage chunk). */
  usage: TokenUsage;
  /** False when `usage` is not the provider's count (see `outputCharacters`). */
  usageReported: boolean;
  /** Characters of text produced before the end: the lower bound of what was consumed when usage is unknown. */
  outputCharacters: number;
}
