import { randomUUID } from "node:crypto";
import { BoundedCache } from "@conduit-ai/server-core/internal";
import {
  type Gate,
  type GateAdmission,
  type GateIdentity,
  type GateRefusal,
  type GateRequest,
  MAX_OUTPUT_TOKENS_LIMIT,
  type PriceTable,
} from "@conduit-ai/server-core";
import { keyDigest } from "../key-secret.js";
import { identityOfDigest } from "../mcp/identity-of-digest.js";
import type { AdmitInput, AdmitOutcome, GovernanceStore } from "../store/governance-store.js";
import type { UsageEvent, UsageSink } from "../usage/usage-event.js";
import { windowClock } from "../windows.js";
import { ConcurrencyLines } from "./concurrency-line.js";
import { ModelPricing, type UnpricedModelPolicy } from "./model-pricing.js";
import { type AdmittedCallDeps, admittedCall } from "./admitted-call.js";
import { LEASE_RENEWAL_LIMIT_MS } from "./lease-renewal.js";
import { PendingSettlements } from "./pending-settlements.js";
import { concurrencyTimeout, invalidRequest, missingKey, refusalOf, storeUnavailable } from "./refusals.js";

export interface GovernanceGateOptions {
  store: GovernanceStore;
  usage: UsageSink;
  prices: PriceTable;
  /** `keys.secret` / `CONDUIT_KEYS_SECRET`: digests are HMACs under it when set. */
  keysSecret?: string;
  /** Output tokens reserved when a request names no `max_tokens` (default 4096). */
  defaultMaxOutputTokens?: number;
  /** `keys.unpricedModels`: a model without a price is refused to budgeted keys (default), estimated, or free. */
  unpricedModels?: UnpricedModelPolicy;
  /** A call's lease when its surface names no timeout (default 10 minutes, the proxy's); plus the margin. */
  leaseTtlMs?: number;
  /** How long a lease outlives its call's timeout (default `LEASE_MARGIN_MS`, 30 s). */
  leaseMarginMs?: number;
  /** Calls waiting per key or team in this process beyond which 429 comes at once (default 1000). */
  maxQueueLength?: number;
  /** Settlements held while the store is away before the oldest spill to `settlementSpillFile` (default 10 000). */
  maxPendingSettlements?: number;
  /** Default `./conduit-settlement-spill.ndjson`. */
  settlementSpillFile?: string;
  /** Told of every finished call (metrics). */
  onUsage?: (event: UsageEvent) => void;
  /** Unpriced models (once each), a store outage and its end. */
  onWarning?: (message: string) => void;
}

/** A lease outlives its call's timeout by this much: the settlement's own round trip. */
export const LEASE_MARGIN_MS = 30_000;
/** Input tokens a request may be estimated at: far past any body limit, well inside what a counter holds. */
const MAX_INPUT_TOKENS = 1_000_000_000;

/**
 * Governance as the server's `Gate`: every AI surface asks it before the work and settles after.
 * Admission is one store call (one Redis round trip: the admit script), priced at the dearest
 * model the call may reach; a call over a concurrency cap waits in a FIFO line up to
 * `limits.queueTimeoutMs`; settlement is one more, and survives a lost store connection (queued
 * and retried, idempotent by the lease id). The usage event goes with the settlement when the
 * store keeps events (Redis with a durable history: its outbox), else to the usage sink at once.
 *
 * @example
 * const gate = new GovernanceGate({ store, usage: new MemoryUsageSink(), prices: mergePrices() });
 * const decision = await gate.admit({ credential, surface: "anthropic", model, estimatedInputTokens: 900, maxOutputTokens: 1024 });
 */
export class GovernanceGate implements Gate {
  readonly #options: GovernanceGateOptions;
  readonly #lines: ConcurrencyLines;
  readonly #pricing: ModelPricing;
  readonly #settlements: PendingSettlements;
  readonly #callDeps: AdmittedCallDeps;
  /** digest → the line it last waited in, so newcomers queue behind waiters instead of overtaking them. */
  readonly #lineOf = new BoundedCache<string>({ maxEntries: 10_000 });
  /** team id → its guardrail names, read once per 5 s: the key's record comes with its admission, the team's does not. */
  readonly #teamGuardrails = new BoundedCache<string[]>({ maxEntries: 10_000, ttlMs: 5_000 });
  /** team → its `cache` choice, kept 5 s (see `#teamCacheChoice`). */
  readonly #teamChoices = new BoundedCache<{ cache: boolean | undefined }>({ maxEntries: 10_000, ttlMs: 5_000 });

  constructor(options: GovernanceGateOptions) {
    this.#options = options;
    this.#lines = new ConcurrencyLines({ maxLength: options.maxQueueLength ?? 1_000 });
    this.#pricing = new ModelPricing(options.prices, options.unpricedModels ?? "refuse", options.onWarning);
    this.#settlements = new PendingSettlements({
      apply: ({ reservation, actual, event }) => options.store.settle(reservation, actual, event),
      ...(options.maxPendingSettlements !== undefined ? { maxPending: options.maxPendingSettlements } : {}),
      ...(options.settlementSpillFile !== undefined ? { spillFile: options.settlementSpillFile } : {}),
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
    this.#callDeps = {
      store: options.store,
      usage: options.usage,
      settlements: this.#settlements,
      lines: this.#lines,
      pricing: this.#pricing,
      ...(options.onUsage ? { onUsage: options.onUsage } : {}),
    };
  }

  /** Settlements waiting for the store (it was unreachable when they came). */
  get pendingSettlements(): number {
    return this.#settlements.size;
  }

  /** Applies the waiting settlements now (tests, shutdown); rejects while the store still refuses. */
  flushSettlements(): Promise<void> {
    return this.#settlements.drain();
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
    const { maxOutputTokens, estimatedInputTokens } = request;
    if (
      maxOutputTokens !== undefined &&
      !(Number.isInteger(maxOutputTokens) && maxOutputTokens >= 0 && maxOutputTokens <= MAX_OUTPUT_TOKENS_LIMIT)
    )
      return invalidRequest(`The output cap must be an integer from 0 to ${MAX_OUTPUT_TOKENS_LIMIT} (got ${maxOutputTokens})`);
    if (!(Number.isFinite(estimatedInputTokens) && estimatedInputTokens >= 0 && estimatedInputTokens <= MAX_INPUT_TOKENS))
      return invalidRequest("The request is too large to estimate");
    const inputTokens = Math.ceil(estimatedInputTokens);
    const outputTokens = maxOutputTokens ?? this.#options.defaultMaxOutputTokens ?? 4096;
    const models = request.models && request.models.length > 0 ? request.models : request.model ? [request.model] : undefined;
    const priced = this.#pricing.forReservation(models, inputTokens, outputTokens);
    if (!Number.isSafeInteger(priced.picoUsd)) return invalidRequest("The request's reservation is larger than a budget can count");
    const timeoutMs = typeof request.timeoutMs === "number" && request.timeoutMs > 0 ? request.timeoutMs : undefined;
    const leaseTtlMs =
      Math.min(timeoutMs ?? this.#options.leaseTtlMs ?? 10 * 60_000, LEASE_RENEWAL_LIMIT_MS) +
      (this.#options.leaseMarginMs ?? LEASE_MARGIN_MS);
    const base = {
      digest,
      model: request.model,
      estimatedTokens: inputTokens + outputTokens,
      estimatedPicoUsd: priced.picoUsd,
      leaseTtlMs,
      // Kept with the lease: what the call is recorded as if this process dies before it settles.
      call: { model: request.model ?? models?.[0] ?? "unknown", inputTokens, outputTokens },
      ...(priced.unpricedModel !== undefined ? { unpricedModel: priced.unpricedModel } : {}),
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
      return refusalOf(
        outcome as Exclude<AdmitOutcome, { admitted: true } | { reason: "concurrency" }>,
        request.model,
        priced.unpricedModel,
      );
    const admittedFor = request.model ? [...(models ?? []), request.model] : (models ?? []);
    const cache = outcome.key.cache ?? (outcome.key.team ? await this.#teamCacheChoice(outcome.key.team) : undefined);
    const key = cache === undefined ? outcome.key : { ...outcome.key, cache };
    const admission = admittedCall(this.#callDeps, {
      key,
      reservation: outcome.reservation,
      reservedPrice: priced.price,
      admittedFor,
      leaseTtlMs,
      reserved: base.call,
    });
    try {
      const guardrails = await this.#guardrailsOf(outcome.key);
      return guardrails.length > 0 ? { ...admission, identity: { ...admission.identity, guardrails } } : admission;
    } catch {
      // Fail closed: a call whose team's guardrails cannot be read does not run without them.
      await admission.release();
      return storeUnavailable();
    }
  }

  /** The team's guardrail names, then the key's (the order `!name` resolves in). */
  async #guardrailsOf(key: { team?: string; guardrails?: string[] }): Promise<string[]> {
    let team: string[] | undefined = [];
    if (key.team) {
      team = this.#teamGuardrails.get(key.team);
      if (team === undefined) {
        team = (await this.#options.store.getTeam(key.team))?.guardrails ?? [];
        this.#teamGuardrails.set(key.team, team);
      }
    }
    return [...team, ...(key.guardrails ?? [])];
  }

  /** Who a digest belongs to, when it is a live key (the WebSocket upgrade; no counters touched). */
  async identify(digest: string): Promise<{ keyId: string; name?: string; team?: string } | undefined> {
    if (!(await this.#options.store.isActiveDigest(digest, Date.now()))) return undefined;
    const keyId = await this.#options.store.keyIdOf(digest);
    const key = keyId ? await this.#options.store.getKey(keyId) : undefined;
    return key ? { keyId: key.id, ...(key.name ? { name: key.name } : {}), ...(key.team ? { team: key.team } : {}) } : undefined;
  }

  /** Applies what waits, then spills the rest for the next process (shutdown). */
  close(): Promise<void> {
    return this.#settlements.close();
  }

  async #attempt(base: Omit<AdmitInput, "clock" | "leaseId">): Promise<AdmitOutcome | { refusal: GateRefusal }> {
    try {
      return await this.#options.store.admit({ ...base, clock: windowClock(Date.now()), leaseId: randomUUID() });
    } catch {
      // Fail closed: without the store nothing can be checked.
      return { refusal: storeUnavailable() };
    }
  }

  /**
   * A team's `cache` choice, read from the store at most every few seconds per team: the
   * admission stays one round trip; a changed choice applies within 5 s.
   * A store that fails leaves the server's default.
   */
  async #teamCacheChoice(team: string): Promise<boolean | undefined> {
    const known = this.#teamChoices.get(team);
    if (known !== undefined) return known.cache;
    const record = await this.#options.store.getTeam(team).catch(() => undefined);
    this.#teamChoices.set(team, { cache: record?.cache });
    return record?.cache;
  }
}

function lineOf(outcome: { scope: "key" | "team"; key: { id: string; team?: string } }): string {
  return outcome.scope === "team" ? `team:${outcome.key.team}` : `key:${outcome.key.id}`;
}
