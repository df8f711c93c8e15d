import { createHash, randomBytes } from "node:crypto";

import type { ConsolePrincipal } from "./console-principal.js";

/**
 * What a console session keeps server-side: never a credential, only its digest (a credential
 * sign-in) or who signed in and their role (single sign-on). A single sign-on between its start
 * and its callback is kept the same way, under its own key, with `pending`.
 */
export interface ConsoleSession {
  /** SHA-256 (hex) of the admin credential the operator signed in with. */
  credentialDigest?: string;
  /** Single sign-on: the user and the role the provider's claims mapped to. */
  principal?: ConsolePrincipal;
  /** Single sign-on: the provider's name. */
  provider?: string;
  /** A sign-in under way: the PKCE verifier, the nonce and the digest of the browser's binding cookie. */
  pending?: { verifier: string; nonce: string; binding: string };
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
}

/** Where sessions live; keys are digests of the cookie's id, so the store never holds a usable cookie. */
export interface ConsoleSessionStore {
  set(key: string, session: ConsoleSession, ttlMs: number): Promise<void>;
  get(key: string): Promise<ConsoleSession | undefined>;
  delete(key: string): Promise<void>;
}

/** A new session id for the cookie: 256 random bits, base64url. */
export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

/** The store key of a cookie's id. */
export function sessionKey(id: string): string {
  return createHash("sha256").update(id, "utf8").digest("hex");
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** True when `id` has the shape `newSessionId` gives (anything else is never looked up). */
export function isSessionId(id: string | undefined): id is string {
  return id !== undefined && SESSION_ID.test(id);
}

/**
 * Sessions in this process's memory (the default): lost on restart, not shared between
 * processes. Bounded: beyond `maxSessions` the oldest is dropped.
 *
 * @example
 * const store = new MemoryConsoleSessionStore();
 */
export class MemoryConsoleSessionStore implements ConsoleSessionStore {
  private readonly sessions = new Map<string, ConsoleSession>();
  constructor(private readonly maxSessions = 10_000) {}

  async set(key: string, session: ConsoleSession): Promise<void> {
    this.sessions.delete(key);
    this.sessions.set(key, session);
    while (this.sessions.size > this.maxSessions) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
  }

  async get(key: string): Promise<ConsoleSession | undefined> {
    const session = this.sessions.get(key);
    if (session && session.expiresAt <= Date.now()) {
      this.sessions.delete(key);
      return undefined;
    }
    return session;
  }

  async delete(key: string): Promise<void> {
    this.sessions.delete(key);
  }
}

/** The part of an ioredis client the Redis store uses. */
export interface ConsoleSessionRedis {
  set(key: string, value: string, mode: "PX", ttlMs: number): Promise<unknown>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<unknown>;
}

/**
 * Sessions in Redis (`REDIS_URL`), shared by every process on it; each expires with its cookie.
 *
 * @example
 * const store = new RedisConsoleSessionStore(redis, "conduit:console:");
 */
export class RedisConsoleSessionStore implements ConsoleSessionStore {
  constructor(
    private readonly redis: ConsoleSessionRedis,
    private readonly prefix = "conduit:console:session:",
  ) {}

  async set(key: string, session: ConsoleSession, ttlMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, JSON.stringify(session), "PX", Math.max(1, Math.ceil(ttlMs)));
  }

  async get(key: string): Promise<ConsoleSession | undefined> {
    const text = await this.redis.get(this.prefix + key);
    if (text === null) return undefined;
    const session = JSON.parse(text) as ConsoleSession;
    return session.expiresAt > Date.now() ? session : undefined;
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}
