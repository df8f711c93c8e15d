import { createHash } from "node:crypto";
import type { ServerContext } from "../../contracts/context.js";
import { ErrorCategory } from "../../errors/codes.js";
import { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { StoreUnavailableError, storeCall } from "../../errors/store-unavailable.js";
import { BoundedCache } from "../../core/cache/bounded-cache.js";
import { clientKey } from "./client-key.js";
import { MemoryRateLimitStore } from "./memory-rate-limit-store.js";
import type { RateLimitStore, WindowCheck } from "../../contracts/rate-limit-store.js";

export interface CredentialFailureGuardOptions {
  /** Where the counts live: memory (default) or `RedisRateLimitStore`, shared by every process on it. */
  store?: RateLimitStore;
  /** Failed credentials from one client address before new credentials from it wait (default 30). */
  maxFailuresPerAddress?: number;
  /** Failures of one credential (from anywhere) before it waits (default 10). */
  maxFailuresPerAccount?: number;
  /** How long failures count (default 15 minutes). */
  windowMs?: number;
  /** Namespace of the counters in the store (default `auth-failures:`). */
  prefix?: string;
}

/**
 * A credential that has succeeded is remembered for 30 days (sliding by the day): its address's
 * lock never keeps it out. Marked once: a mark already there is not counted again.
 */
const KNOWN_GOOD: WindowCheck = { maxRequests: 1, windowMs: 30 * 24 * 60 * 60 * 1000, subWindows: 30 };
/** Successes already written to the store in this process (one write per credential and hour, not per request). */
const REMEMBERED_GOOD_MS = 60 * 60 * 1000;

/** What `check` learned before the credential was evaluated, handed back to `succeeded` / `failed`. */
export interface CredentialAttempt {
  readonly account: string;
  readonly address: string;
}

/**
 * The account a credential stands for in the counters: 16 hex characters of its SHA-256 —
 * enough to tell credentials apart, never the secret or anything that opens it.
 *
 * @example
 * credentialAccount("sk-…"); // "3f2a…" (16 characters)
 */
export function credentialAccount(credential: string): string {
  return createHash("sha256").update(credential, "utf8").digest("hex").slice(0, 16);
}

/**
 * A brute-force guard for credential checks (the admin API, the console's sign-in), apart from
 * the per-address request limit: only FAILED credentials count, per client address and per
 * account (`credentialAccount`), shared on Redis when the store is.
 *
 * - A credential that failed `maxFailuresPerAccount` times waits, from every address (429).
 * - An address with `maxFailuresPerAddress` failures gets 429 for any credential that has never
 *   succeeded — without evaluating it — while credentials that have succeeded before still work
 *   from there: one guesser behind an office NAT does not lock its colleagues out.
 * - Answers 429 `TOO_MANY_FAILED_CREDENTIALS` with `Retry-After` (when the oldest failure expires).
 *
 * @example
 * const attempt = await guard.check(ctx, credential);   // 429 when locked
 * if (await isAdmin(credential)) await guard.succeeded(attempt);
 * else await guard.failed(ctx, attempt);                 // 429 once over a limit, else returns (answer 401)
 */
export class CredentialFailureGuard {
  readonly #store: RateLimitStore;
  readonly #perAddress: WindowCheck;
  readonly #perAccount: WindowCheck;
  readonly #prefix: string;
  readonly #rememberedGood = new BoundedCache<true>({ maxEntries: 10_000, ttlMs: REMEMBERED_GOOD_MS });

  constructor(options: CredentialFailureGuardOptions = {}) {
    const windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.#store = options.store ?? new MemoryRateLimitStore();
    // Sliding windows (15 slices): a failure counts for the whole window, never less at a clock boundary.
    this.#perAddress = { maxRequests: options.maxFailuresPerAddress ?? 30, windowMs, subWindows: 15 };
    this.#perAccount = { maxRequests: options.maxFailuresPerAccount ?? 10, windowMs, subWindows: 15 };
    this.#prefix = options.prefix ?? "auth-failures:";
  }

  /** A store call bounded like every other: Redis down or hung is 503 `STORE_UNAVAILABLE` (fail closed). */
  async #call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await storeCall("auth-failures", operation);
    } catch (error) {
      // Named for what failed here (a Redis store names itself "rate-limit"): the operator reads which check could not run.
      throw new StoreUnavailableError("auth-failures", { cause: error });
    }
  }

  /** The count under `key` without adding to it (a check that admits nothing counts nothing). */
  #peek(key: string, check: WindowCheck) {
    return this.#call(() => this.#store.hitWindow(this.#prefix + key, { ...check, maxRequests: 0 }));
  }

  /** Before the credential is evaluated: 429 when it, or (for a credential never seen to work) its address, is locked out. */
  async check(ctx: ServerContext, credential: string): Promise<CredentialAttempt> {
    const attempt = { account: credentialAccount(credential), address: clientKey(ctx) };
    const [account, address] = await Promise.all([
      this.#peek(`account:${attempt.account}`, this.#perAccount),
      this.#peek(`address:${attempt.address}`, this.#perAddress),
    ]);
    if (account.count >= this.#perAccount.maxRequests) throw tooManyFailures(account.resetMs);
    if (address.count >= this.#perAddress.maxRequests) {
      const good = await this.#peek(`good:${attempt.account}`, KNOWN_GOOD);
      if (good.count === 0) throw tooManyFailures(address.resetMs);
    }
    return attempt;
  }

  /** The credential worked: remembered (`KNOWN_GOOD`) as one its address's lock never keeps out. */
  async succeeded(attempt: CredentialAttempt): Promise<void> {
    if (this.#rememberedGood.get(attempt.account)) return;
    await this.#call(() => this.#store.hitWindow(`${this.#prefix}good:${attempt.account}`, KNOWN_GOOD));
    this.#rememberedGood.set(attempt.account, true);
  }

  /** The credential failed: counted for its address and its account; 429 once either is over its limit. */
  async failed(attempt: CredentialAttempt): Promise<void> {
    const [account, address] = await Promise.all([
      this.#call(() => this.#store.hitWindow(`${this.#prefix}account:${attempt.account}`, this.#perAccount)),
      this.#call(() => this.#store.hitWindow(`${this.#prefix}address:${attempt.address}`, this.#perAddress)),
    ]);
    if (!account.allowed || account.count >= this.#perAccount.maxRequests) throw tooManyFailures(account.resetMs);
    if (!address.allowed || address.count >= this.#perAddress.maxRequests) throw tooManyFailures(address.resetMs);
  }
}

function tooManyFailures(resetMs: number): ServerAdapterError {
  return new ServerAdapterError("Too many failed credentials; try again later", {
    code: "TOO_MANY_FAILED_CREDENTIALS",
    statusCode: 429,
    category: ErrorCategory.RATE_LIMIT,
    retryable: true,
    retryAfterMs: Math.max(1000, resetMs),
  });
}
