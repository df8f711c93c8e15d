import { randomUUID } from "node:crypto";
import { BoundedCache } from "@conduit-ai/server-core/middleware";
import {
  type Gate,
  type GateAdmission,
  type GateIdentity,
  type GateRefusal,
  type GateRequest,
  type GateUsage,
  type PriceTable,
  priceOf,
} from "@conduit-ai/server-core";
import { keyDigest } from "../key-secret.js";
import { identityOfDigest } from "../mcp/identity-of-digest.js";
import type { AdmitInput, AdmitOutcome, GovernanceStore, Reservation } from "../store/governance-store.js";
import type { UsageEvent, UsageSink } from "../usage/usage-event.js";
import { windowClock } from "../windows.js";
import { ConcurrencyLines } from "./concurrency-line.js";
import { concurrencyTimeout, missingKey, refusalOf, storeUnavailable } from "./refusals.js";

export interface GovernanceGateOptions {
  store: GovernanceStore;
  usage: UsageSink;
  prices: PriceTable;
  /** `keys.secret` / `CONDUIT_KEYS_SECRET`: digests are HMACs under it when set. */
  keysSecret?: string;
  /** Output tokens reserved when a request names no `max_tokens` (default 4096). */
  defaultMaxOutputTokens?: number;
  /** A concurrency slot not settled by then is freed (a crashed process). Default 15 minutes. */
  leaseTtlMs?: number;
  /** Calls waiting per key or team in this process beyond which 429 comes at once (default 1000). */
  maxQueueLength?: number;
  /** Told of every finished call (metrics). */
  onUsage?: (event: UsageEvent) => void;
}

/**
 * Pico-dollars (1e-12 USD) of a token count at a price in USD per million tokens. Integers, so
 * Redis adds them exactly; a price with up to six decimals gives an exact count.
 */
function picoUsd(tokens: number, usdPerMillion: number | undefined): number {
  return Math.round(tokens * (usdPerMillion ?? 0) * 1e6);
}

/**
 * Governance as the server's `Gate`: every AI surface asks it before the work and settles after.
 * Admission is one store call (one Redis round trip: the admit script); a call over a concurrency
 * cap waits in a FIFO line up to `limits.queueTimeoutMs`; settlement is one more.
 *
 * @example
 * const gate = new GovernanceGate({ store, usage: new MemoryUsageSink(), prices: mergePrices() });
 * const decision = await gate.admit({ credential, surface: "anthropic", model, estimatedInputTokens: 900, maxOutputTokens: 1024 });
 */
export class GovernanceGate implements Gate {
  readonly #options: GovernanceGateOptions;
  readonly #lines: ConcurrencyLines;
  /** digest → the line it last waited in, so newcomers queue behind waiters instead of overtaking them. */
  readonly #lineOf = new BoundedCache<string>({ maxEntries: 10_000 });

  constructor(options: GovernanceGateOptions) {
    this.#options = options;
    this.#lines = new ConcurrencyLines({ maxLength: options.maxQueueLength ?? 1_000 });
  }

  async admit(request: GateRequest): Promise<GateAdmission | GateRefusal> {
    if (!request.credential) return missingKey();
    return this.admitDigest(keyDigest(request.credential, this.#options.keysSecret), request);
  }

  /** `Gate.identifyCredential`: the key and its MCP policies, no counter touched (see ../mcp/identity-of-digest.ts). */
  identifyCredential(credential: string): Promise<GateIdentity | undefined> {
    return identityOfDigest(this.#options.store, this.digestOf(credential));
  }

  /** The digest of a credential under this gate's key secret (what the store holds). */
  digestOf(credential: string): string {
    return keyDigest(credential, this.#options.keysSecret);
  }

  /** `admit` for a credential already digested (a WebSocket connection keeps the digest, never the secret). */
  async admitDigest(digest: string, request: Omit<GateRequest, "credential">): Promise<GateAdmission | GateRefusal> {
    const price = request.model ? priceOf(this.#options.prices, request.model) : undefined;
    const outputTokens = request.maxOutputTokens ?? this.#options.defaultMaxOutputTokens ?? 4096;
    const base = {
      digest,
      model: request.model,
      estimatedTokens: request.estimatedInputTokens + outputTokens,
      estimatedPicoUsd: picoUsd(request.estimatedInputTokens, price?.input) + picoUsd(outputTokens, price?.output),
      leaseTtlMs: this.#options.leaseTtlMs ?? 15 * 60_000,
      ...(request.surface === "mcp" ? { kind: "tool" as const } : {}),
    };
    const attempt = () => this.#attempt(base);
    const started = Date.now();
    const queuedLine = this.#lineOf.get(digest);
    let outcome = queuedLine && this.#lines.busy(queuedLine) ? undefined : await attempt();
    if (outcome === undefined || (!("refusal" in outcome) && !outcome.admitted && outcome.reason === "concurrency")) {
      const line =
        outcome && !("refusal" in outcome) && !outcome.admitted && outcome.reason === "concurrency"
          ? lineOf(outcome)
          : (queuedLine as string);
      const timeoutMs =
        outcome && !("refusal" in outcome) && !outcome.admitted && outcome.reason === "concurrency" ? outcome.queueTimeoutMs : 30_000;
      this.#lineOf.set(digest, line);
      outcome = await this.#lines.wait(line, started + timeoutMs, request.signal, async () => {
        const next = await attempt();
        return !("refusal" in next) && !next.admitted && next.reason === "concurrency" ? undefined : next;
      });
      if (outcome === undefined) return concurrencyTimeout(line.startsWith("team:") ? "team" : "key");
    }
    if ("refusal" in outcome) return outcome.refusal;
    if (!outcome.admitted)
      return refusalOf(outcome as Exclude<AdmitOutcome, { admitted: true } | { reason: "concurrency" }>, request.model);
    return this.#admission(outcome.key, outcome.reservation);
  }

  /** Who a digest belongs to, when it is a live key (the WebSocket upgrade; no counters touched). */
  async identify(digest: string): Promise<{ keyId: string; team?: string } | undefined> {
    if (!(await this.#options.store.isActiveDigest(digest, Date.now()))) return undefined;
    const keyId = await this.#options.store.keyIdOf(digest);
    const key = keyId ? await this.#options.store.getKey(keyId) : undefined;
    return key ? { keyId: key.id, ...(key.team ? { team: key.team } : {}) } : undefined;
  }

  async #attempt(base: Omit<AdmitInput, "clock" | "leaseId">): Promise<AdmitOutcome | { refusal: GateRefusal }> {
    try {
      return await this.#options.store.admit({ ...base, clock: windowClock(Date.now()), leaseId: randomUUID() });
    } catch {
      // Fail closed: without the store nothing can be checked.
      return { refusal: storeUnavailable() };
    }
  }

  #admission(key: { id: string; name: string; team?: string; user?: string }, reservation: Reservation): GateAdmission {
    let done = false;
    const identity = { keyId: key.id, name: key.name, ...(key.team ? { team: key.team } : {}), ...(key.user ? { user: key.user } : {}) };
    const freed = () => {
      this.#lines.notify(`key:${key.id}`);
      if (key.team) this.#lines.notify(`team:${key.team}`);
    };
    return {
      identity,
      settle: async (usage: GateUsage) => {
        if (done) return;
        done = true;
        const price = priceOf(this.#options.prices, usage.model);
        const cacheRead = usage.cacheReadTokens ?? 0;
        const cacheWrite = usage.cacheWriteTokens ?? 0;
        const pico =
          picoUsd(usage.inputTokens, price?.input) +
          picoUsd(usage.outputTokens, price?.output) +
          picoUsd(cacheRead, price?.cacheRead ?? price?.input) +
          picoUsd(cacheWrite, price?.cacheWrite ?? price?.input);
        const tokens = usage.inputTokens + usage.outputTokens + cacheRead + cacheWrite;
        try {
          await this.#options.store.settle(reservation, { actualTokens: tokens, actualPicoUsd: pico });
        } finally {
          freed();
        }
        const event: UsageEvent = {
          id: reservation.leaseId,
          time: new Date().toISOString(),
          key: key.id,
          ...(key.team ? { team: key.team } : {}),
          ...(key.user ? { user: key.user } : {}),
          model: usage.model,
          ...(usage.target ? { target: usage.target } : {}),
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          cacheReadTokens: cacheRead,
          cacheWriteTokens: cacheWrite,
          costUsd: pico / 1e12,
          status: usage.status,
          latencyMs: usage.latencyMs,
          ...(usage.tool ? { kind: "tool" as const, server: usage.tool.server, tool: usage.tool.name } : {}),
        };
        this.#options.usage.append(event);
        this.#options.onUsage?.(event);
      },
      release: async () => {
        if (done) return;
        done = true;
        try {
          await this.#options.store.release(reservation);
        } finally {
          freed();
        }
      },
    };
  }
}

function lineOf(outcome: { scope: "key" | "team"; key: { id: string; team?: string } }): string {
  return outcome.scope === "team" ? `team:${outcome.key.team}` : `key:${outcome.key.id}`;
}
