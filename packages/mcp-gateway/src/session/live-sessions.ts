import { LiveSession, type LiveSessionDependencies } from "./live-session.js";
import type { McpSessionRecord } from "./session-store.js";

export interface LiveSessionsOptions {
  /** A session with no request, no open stream and nothing in flight for this long is closed here (default 5 minutes). */
  idleMs?: number;
  /** Sessions held at once by this process; past it the least recently used idle ones go (default 1000). */
  maxSessions?: number;
}

/**
 * The sessions this process serves now. A session closed here (idle, evicted) is not ended: its
 * record stays in the store and any process — this one included — rebuilds it on its next request,
 * continuing its upstream sessions.
 */
export class LiveSessions {
  readonly #sessions = new Map<string, LiveSession>();
  readonly #idleMs: number;
  readonly #maxSessions: number;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly dependencies: LiveSessionDependencies,
    options: LiveSessionsOptions = {},
  ) {
    this.#idleMs = options.idleMs ?? 5 * 60_000;
    this.#maxSessions = options.maxSessions ?? 1_000;
    this.#timer = setInterval(() => this.#sweep(), Math.min(30_000, this.#idleMs));
    this.#timer.unref();
  }

  /** The live session of a record just read from the store (its latest state adopted). */
  adopt(record: McpSessionRecord): LiveSession {
    let session = this.#sessions.get(record.id);
    if (session) {
      // Another process may have recorded upstream sessions or subscriptions meanwhile.
      session.record = { ...record, upstream: { ...record.upstream, ...session.record.upstream } };
    } else {
      session = new LiveSession(record, this.dependencies);
      this.#sessions.set(record.id, session);
      if (this.#sessions.size > this.#maxSessions) this.#evictOne();
    }
    session.lastUsed = Date.now();
    return session;
  }

  get(id: string): LiveSession | undefined {
    return this.#sessions.get(id);
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Ends a session here (the client deleted it): its upstream sessions are ended too. */
  async end(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    await session?.close(true);
  }

  #busy(session: LiveSession): boolean {
    return session.streamOpen || session.inflight.size > 0;
  }

  #evictOne(): void {
    for (const [id, session] of this.#sessions) {
      if (this.#busy(session)) continue;
      this.#sessions.delete(id);
      void session.close(false);
      return;
    }
  }

  #sweep(): void {
    const cutoff = Date.now() - this.#idleMs;
    for (const [id, session] of this.#sessions) {
      if (session.lastUsed > cutoff || this.#busy(session)) continue;
      this.#sessions.delete(id);
      void session.close(false);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.close(false)));
  }
}
