import type { DependencyHealth } from "../../contracts/runtime.js";
import type { Logger } from "../../core/lifecycle/logger.js";
import { StoreUnavailableError, isStoreUnavailable } from "../../errors/store-unavailable.js";
import type { RateLimitStore } from "../../contracts/rate-limit-store.js";

/** How often a limiter running open repeats its warning while the store stays down. */
const WARN_EVERY_MS = 30_000;

/**
 * A limiter's stance when its store fails. Closed (the default) answers 503
 * `STORE_UNAVAILABLE`: a limit in front of authentication is what stops credential guessing,
 * and failing open would lift it exactly while an attacker could be causing the outage.
 * Open lets the request through uncounted (logged, and readiness reports "degraded").
 */
export class StoreGuard {
  private downSince: number | undefined;
  private warnedAt = 0;

  constructor(
    readonly store: RateLimitStore,
    readonly failOpen: boolean,
    private readonly logger: Pick<Logger, "warn" | "info"> | undefined,
  ) {}

  /** The store's answer; `undefined` when it failed and the limiter is open; throws 503 when closed. */
  async call<T>(operation: () => Promise<T>): Promise<T | undefined> {
    let result: T;
    try {
      result = await operation();
    } catch (error) {
      this.failed(error);
      if (this.failOpen) return undefined;
      throw isStoreUnavailable(error) ? error : new StoreUnavailableError("rate-limit", { cause: error });
    }
    if (this.downSince !== undefined) {
      this.logger?.info({ downForMs: Date.now() - this.downSince }, "rate-limit store recovered");
      this.downSince = undefined;
    }
    return result;
  }

  private failed(error: unknown): void {
    const now = Date.now();
    this.downSince ??= now;
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    const cause = (error as { cause?: unknown }).cause ?? error;
    this.logger?.warn(
      { err: cause, failOpen: this.failOpen },
      this.failOpen
        ? "rate-limit store unavailable: requests pass unlimited (failOpen)"
        : "rate-limit store unavailable: requests answered 503",
    );
  }

  /** Readiness entry: required when closed (requests fail while it is down), degraded-only when open. */
  async health(): Promise<DependencyHealth | undefined> {
    if (!this.store.ping) return undefined;
    const started = performance.now();
    try {
      await this.store.ping();
      return { status: "ok", required: !this.failOpen, latencyMs: Math.round(performance.now() - started) };
    } catch {
      return { status: "down", required: !this.failOpen, message: "rate-limit store unavailable" };
    }
  }
}
