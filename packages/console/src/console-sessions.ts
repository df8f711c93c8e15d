import { ServerAdapterError, type ServerContext, storeCall } from "@conduit-ai/server-core";
import { CredentialFailureGuard } from "@conduit-ai/server-core/internal";
import { credentialDigest } from "./admin-check.js";
import { type ConsoleAuditLog, type ConsolePrincipal, UNKNOWN_ACTOR, consoleAuditEvent } from "./console-principal.js";
import { readCookie, sessionCookie } from "./session-cookie.js";
import { type ConsoleSession, type ConsoleSessionStore, isSessionId, newSessionId, sessionKey } from "./session-store.js";

/** Console sessions last 8 hours unless configured otherwise. */
export const DEFAULT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/** Credentials signed in on this process, kept for forwarding (oldest dropped beyond this). */
const MAX_REMEMBERED_CREDENTIALS = 1_000;

export interface ConsoleSessionsOptions {
  store: ConsoleSessionStore;
  /**
   * Who a credential is to the admin API (`adminCredentialPrincipal`), or undefined/false when it
   * has no role there; `true` (a bare yes) is an `admin`.
   */
  verifyAdmin: (credential: string) => boolean | ConsolePrincipal | undefined | Promise<boolean | ConsolePrincipal | undefined>;
  /** Admin credentials every process knows from its config: a session signed in with one works on any process sharing the store. */
  adminKeys?: readonly string[];
  ttlMs: number;
  /** The cookie's `Path` (the console's prefix). */
  path: string;
  /** Failed sign-ins per address and per credential (default: this process's memory). */
  failures?: CredentialFailureGuard;
  /** Where sign-ins, failed sign-ins and sign-outs are recorded (governance's audit log). */
  audit?: ConsoleAuditLog;
}

/** A session's principal when the check gave a bare yes. */
const ANY_ADMIN: ConsolePrincipal = { kind: "admin-key", id: "admin", role: "admin" };

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
    if (typeof credential !== "string" || credential.length === 0 || credential.length > 4096) {
      await this.record(ctx, UNKNOWN_ACTOR, "console.signin", "failure");
      throw invalid();
    }
    const attempt = await this.failures.check(ctx, credential).catch(async (error: unknown) => {
      await this.record(ctx, UNKNOWN_ACTOR, "console.signin", "denied");
      throw error;
    });
    const principal = await this.verify(credential);
    if (!principal) {
      await this.record(ctx, UNKNOWN_ACTOR, "console.signin", "failure");
      await this.failures.failed(attempt);
      throw invalid();
    }
    await this.failures.succeeded(attempt);
    const digest = credentialDigest(credential);
    this.remember(digest, credential);
    const session = await this.open(ctx, { credentialDigest: digest });
    await this.record(ctx, principal, "console.signin", "success");
    return session;
  }

  /**
   * Opens a session for someone the identity provider vouched for (single sign-on): no
   * credential, the principal and its role kept in the session itself.
   */
  async signInAs(ctx: ServerContext, principal: ConsolePrincipal, provider: string): Promise<ConsoleSession> {
    const session = await this.open(ctx, { principal, provider });
    await this.record(ctx, principal, "console.signin", "success", { provider });
    return session;
  }

  /** Records a refused single sign-on (no role mapped, a bad callback): who, when known, and why. */
  refused(
    ctx: ServerContext,
    actor: Pick<ConsolePrincipal, "kind" | "id" | "hint"> | undefined,
    reason: string,
    provider: string,
  ): Promise<void> {
    return this.record(ctx, actor ?? UNKNOWN_ACTOR, "console.signin", "failure", { provider, reason });
  }

  /** The failed-sign-in guard the single sign-on callback shares with the credential form. */
  get failureGuard(): CredentialFailureGuard {
    return this.failures;
  }

  /** Deletes the request's session (if any) and its cookie; returns the session that ended. */
  async signOut(ctx: ServerContext): Promise<ConsoleSession | undefined> {
    const current = await this.require(ctx).catch(() => undefined);
    const id = readCookie(ctx);
    if (isSessionId(id)) await this.stored(() => this.options.store.delete(sessionKey(id)));
    ctx.setHeader("set-cookie", sessionCookie(ctx, { id: "", path: this.options.path, maxAgeSeconds: 0 }));
    if (current) await this.record(ctx, current.principal, "console.signout", "success");
    return current?.session;
  }

  /** A new session id in the cookie and its record in the store. */
  private async open(
    ctx: ServerContext,
    content: Pick<ConsoleSession, "credentialDigest" | "principal" | "provider">,
  ): Promise<ConsoleSession> {
    const now = Date.now();
    const session: ConsoleSession = { ...content, createdAt: now, expiresAt: now + this.options.ttlMs };
    const id = newSessionId();
    await this.stored(() => this.options.store.set(sessionKey(id), session, this.options.ttlMs));
    ctx.setHeader("set-cookie", sessionCookie(ctx, { id, path: this.options.path, maxAgeSeconds: Math.floor(this.options.ttlMs / 1000) }));
    return session;
  }

  private record(
    ctx: ServerContext,
    actor: Pick<ConsolePrincipal, "kind" | "id" | "hint"> & { role?: string },
    action: string,
    outcome: "success" | "denied" | "failure",
    after?: Record<string, string>,
  ): Promise<void> {
    // Awaited by every caller: with governance's Redis outbox the event is durable before the answer.
    return Promise.resolve(
      this.options.audit?.append(
        consoleAuditEvent(ctx, actor, { action, target: { type: "console", id: this.options.path }, ...(after ? { after } : {}) }, outcome),
      ),
    );
  }

  /**
   * The request's live session and its credential, checked again with `verifyAdmin` (a revoked
   * admin credential ends its sessions at once); 401 `CONSOLE_SIGN_IN_REQUIRED` otherwise.
   */
  async require(ctx: ServerContext): Promise<{ session: ConsoleSession; principal: ConsolePrincipal; credential?: string }> {
    const id = readCookie(ctx);
    if (!isSessionId(id)) throw signInRequired();
    const key = sessionKey(id);
    const session = await this.stored(() => this.options.store.get(key));
    // A sign-in still under way is no session.
    if (!session || session.pending) throw signInRequired();
    if (session.principal && session.credentialDigest === undefined) return { session, principal: session.principal };
    const credential = session.credentialDigest ? this.credentials.get(session.credentialDigest) : undefined;
    const principal = credential === undefined ? undefined : await this.verify(credential);
    if (credential === undefined || !principal) {
      await this.stored(() => this.options.store.delete(key));
      throw signInRequired();
    }
    return { session, principal, credential };
  }

  /**
   * A session store call: Redis down or hung is 503 `STORE_UNAVAILABLE` with `Retry-After`
   * (the operator learns to wait), never a 500 and never a silent sign-out.
   */
  private stored<T>(operation: () => Promise<T>): Promise<T> {
    return storeCall("console-sessions", operation);
  }

  private async verify(credential: string): Promise<ConsolePrincipal | undefined> {
    try {
      const found = await this.options.verifyAdmin(credential);
      if (found === true) return ANY_ADMIN;
      return found || undefined;
    } catch {
      // A failing check (store down) never signs anyone in.
      return undefined;
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
