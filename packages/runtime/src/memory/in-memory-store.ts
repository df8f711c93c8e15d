import type { SessionInfo, SessionMessage, SessionMessagesPage } from "@conduit-ai/server-core";
import { type ConversationStore, normalizePage } from "./conversation-store.js";

interface StoredSession {
  id: string;
  createdAt: string;
  updatedAt: string;
  messages: SessionMessage[];
}

/**
 * Process-local conversation memory (the default). Lost on restart; use the Redis store to keep it.
 *
 * @example
 * const memory = new InMemoryConversationStore();
 * await memory.append("s1", [{ role: "user", content: "hi", timestamp: new Date().toISOString() }]);
 */
export class InMemoryConversationStore implements ConversationStore {
  readonly #sessions = new Map<string, StoredSession>();

  async append(sessionId: string, messages: SessionMessage[]): Promise<void> {
    const now = new Date().toISOString();
    const session = this.#sessions.get(sessionId) ?? { id: sessionId, createdAt: now, updatedAt: now, messages: [] };
    session.messages.push(...messages);
    session.updatedAt = now;
    this.#sessions.set(sessionId, session);
  }

  async history(sessionId: string, limit?: number): Promise<SessionMessage[]> {
    const messages = this.#sessions.get(sessionId)?.messages ?? [];
    return limit === undefined ? [...messages] : messages.slice(-limit);
  }

  async listSessions(): Promise<SessionInfo[]> {
    return [...this.#sessions.values()].map(toInfo).sort((left, right) => right.updatedAt.localeCompare(left.updatedAt));
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    const session = this.#sessions.get(id);
    return session === undefined ? undefined : toInfo(session);
  }

  async getMessages(id: string, page?: { limit?: number; offset?: number }): Promise<SessionMessagesPage | undefined> {
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    const { limit, offset } = normalizePage(page);
    return { sessionId: id, messages: session.messages.slice(offset, offset + limit), total: session.messages.length, limit, offset };
  }

  async deleteSession(id: string): Promise<boolean> {
    return this.#sessions.delete(id);
  }

  async clearSession(id: string): Promise<boolean> {
    const session = this.#sessions.get(id);
    if (session === undefined) return false;
    session.messages = [];
    session.updatedAt = new Date().toISOString();
    return true;
  }
}

function toInfo(session: StoredSession): SessionInfo {
  return { id: session.id, messageCount: session.messages.length, createdAt: session.createdAt, updatedAt: session.updatedAt };
}
