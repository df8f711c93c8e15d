import type { MemoryStore, SessionMessage } from "@conduit-ai/server-core";

/** The `MemoryStore` contract plus what generation needs: appending and reading history. */
export interface ConversationStore extends MemoryStore {
  append(sessionId: string, messages: SessionMessage[]): Promise<void>;
  /** The last `limit` messages in order (all when omitted). */
  history(sessionId: string, limit?: number): Promise<SessionMessage[]>;
  /** Round-trip check for health; undefined for stores that cannot fail. */
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 500;

/** Clamps paging input so a bad query cannot ask for everything or negative offsets. */
export function normalizePage(page: { limit?: number; offset?: number } = {}): { limit: number; offset: number } {
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? DEFAULT_PAGE_LIMIT), 1), MAX_PAGE_LIMIT);
  const offset = Math.max(Math.trunc(page.offset ?? 0), 0);
  return { limit: Number.isFinite(limit) ? limit : DEFAULT_PAGE_LIMIT, offset: Number.isFinite(offset) ? offset : 0 };
}
