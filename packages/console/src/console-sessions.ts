import { ServerAdapterError, type ServerContext, storeCall } from "@conduit-ai/server-core";
import { CredentialFailureGuard } from "@conduit-ai/server-core/middleware";
import { credentialDigest } from "./admin-check.js";
import { readCookie, sessionCookie } from "./session-cookie.js";
import { type ConsoleSession, type ConsoleSessionStore, isSessionId, newSessionId, sessionKey } from "./session-store.js";

/** Console sessions last 8 hours unless configured otherwise. */
export const DEFAULT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/** Credentials signed in on this process, kept for forwarding (oldest dropped beyond this). */
const MAX_REMEMBERED_CREDENTIALS = 1_000;

export interface ConsoleSessionsOptions {
  store: ConsoleSessionStore;
  verifyAdmin: (credential: string) => boolean | Promise<boolean>;
  /** Admin credentials every process knows from its config: a session signed in with one works on any process sharing the store. */
  adminKeys?: readonly string[];
  ttlMs: number;
  /** The cookie's `Path` (the console's prefix). */
  path: string;
  /** Failed sign-ins per address and per credential (default: this process's memory). */
  failures?: CredentialFailureGuard;
}

export const signInRequired = () =>
  new ServerAdapterError("Sign in to the console first", { code: "CONSOLE_SIGN_IN_REQUIRED", statusCode: 401 });

/**
 * Sign-in, sign-out and the session of a request. The cookie holds a random id; the store holds
 * the digest of that id → `{credentialDigest, expiresAt}`; the credential itself stays in this
 * process's memory (config admin keys are known to every process), so neither the cookie nor the
 * store ever holds a secret that opens the admin API.
 *
 * @example
 * const sessions = new ConsoleSessions({ store, verifyAdmin, ttlMs: DEFAULT_SESSION_TTL_MS, path: "/console" });
 * const { credential } = await sessions.require(ctx);
 */
export class ConsoleSessions {
  private readonly credentials = new Map<string, string>();
  private readonly configured = new Set<string>();
  private readonly failures: CredentialFailureGuard;

  constructor(private readonly options: ConsoleSessionsOptions) {
    this.failures = options.failures ?? new CredentialFailureGuard();
    for (const key of options.adminKeys ?? []) {
      const digest = credentialDigest(key);
      this.credentials.set(digest, key);
      this.configured.add(digest);
    }
  }

  /**
   * Checks `credential` with `verifyAdmin`; on success stores a session and sets its cookie. A
   * refused credential counts against its address and itself (`failures`): past the limit, 429
   * `TOO_MANY_FAILED_CREDENTIALS` with `Retry-After`.
   */
  async signIn(ctx: ServerContext, credential: unknown): Promise<ConsoleSession> {
    const invalid = () => new ServerAdapterError("That admin credential is not valid", { code: "INVALID_CREDENTIAL", statusCode: 401 });
    if (typeof credential !== "string" || credential.length === 0 || credential.length > 4096) throw invalid();
    const attempt = await this.failures.check(ctx, credential);
    if (!(await this.verify(credential))) {
      await this.failures.failed(attempt);
      throw invalid();
    }
    await this.failures.succeeded(attempt);
    const digest = credentialDigest(credential);
    this.remember(digest, credential);
    const now = Date.now();
    const session: ConsoleSession = { credentialDigest: digest, createdAt: now, expiresAt: now + this.options.ttlMs };
    const id = newSessionId();
    await this.stored(() => this.options.store.set(sessionKey(id), session, this.options.ttlMs));
    ctx.setHeader("set-cookie", sessionCookie(ctx, { id, path: this.options.path, maxAgeSeconds: Math.floor(this.options.ttlMs / 1000) }));
    return session;
  }

  /** Deletes the request's session (if any) and its cookie. */
  async signOut(ctx: ServerContext): Promise<void> {
    const id = readCookie(ctx);
    if (isSessionId(id)) await this.stored(() => this.options.store.delete(sessionKey(id)));
    ctx.setHeader("set-cookie", sessionCookie(ctx, { id: "", path: this.options.path, maxAgeSeconds: 0 }));
  }

  /**
   * The request's live session and its credential, checked again with `verifyAdmin` (a revoked
   * admin credential ends its sessions at once); 401 `CONSOLE_SIGN_IN_REQUIRED` otherwise.
   */
  async require(ctx: ServerContext): Promise<{ session: ConsoleSession; credential: string }> {
    const id = readCookie(ctx);
    if (!isSessionId(id)) throw signInRequired();
    const key = sessionKey(id);
    const session = await this.stored(() => this.options.store.get(key));
    const credential = session ? this.credentials.get(session.credentialDigest) : undefined;
    if (!session || credential === undefined || !(await this.verify(credential))) {
      if (session) await this.stored(() => this.options.store.delete(key));
      throw signInRequired();
    }
    return { session, credential };
  }

  /**
   * A session store call: Redis down or hung is 503 `STORE_UNAVAILABLE` with `Retry-After`
   * (the operator learns to wait), never a 500 and never a silent sign-out.
   */
  private stored<T>(operation: () => Promise<T>): Promise<T> {
    return storeCall("console-sessions", operation);
  }

  private async verify(credential: string): Promise<boolean> {
    try {
      return (await this.options.verifyAdmin(credential)) === true;
    } catch {
      // A failing check (store down) never signs anyone in.
      return false;
    }
  }

  private remember(digest: string, credential: string): void {
    if (this.configured.has(digest)) return;
    this.credentials.delete(digest);
    this.credentials.set(digest, credential);
    if (this.credentials.size - this.configured.size <= MAX_REMEMBERED_CREDENTIALS) return;
    for (const oldest of this.credentials.keys()) {
      if (this.configured.has(oldest)) continue;
      this.credentials.delete(oldest);
      break;
    }
  }
}
