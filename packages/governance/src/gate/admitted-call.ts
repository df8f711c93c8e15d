import type { GateAdmission, GateReservationOutcome, GateUsage, TokenPrice } from "@conduit-ai/server-core";
import { costPicoUsd, savedPicoUsd } from "@conduit-ai/server-core/pricing";
import type { GovernanceStore, Reservation } from "../store/governance-store.js";
import type { UsageEvent, UsageSink } from "../usage/usage-event.js";
import { meteredOf, reservationUsageEvent, settledUsageEvent } from "./call-usage-event.js";
import type { ConcurrencyLines } from "./concurrency-line.js";
import { keepLeaseAlive } from "./lease-renewal.js";
import type { ModelPricing } from "./model-pricing.js";
import type { PendingSettlements } from "./pending-settlements.js";

/** What an admitted call settles through: the gate's store, sink, queue of settlements, lines and prices. */
export interface AdmittedCallDeps {
  store: Pick<GovernanceStore, "renewLease" | "keepsUsageEvents">;
  usage: Pick<UsageSink, "append">;
  settlements: Pick<PendingSettlements, "submit">;
  lines: Pick<ConcurrencyLines, "notify">;
  pricing: Pick<ModelPricing, "forSettlement">;
  /** Told of every finished call (metrics). */
  onUsage?: (event: UsageEvent) => void;
}

/** What the admission decided for one call. */
export interface AdmittedCallFacts {
  key: { id: string; name: string; team?: string; user?: string; cache?: boolean };
  reservation: Reservation;
  /** The price the reservation was made at (the dearest model the call may reach). */
  reservedPrice: TokenPrice;
  /** The models the call was admitted for: a settlement naming another is priced at the reservation's price. */
  admittedFor: readonly string[];
  leaseTtlMs: number;
  reserved: { model: string; inputTokens: number; outputTokens: number };
}

/**
 * An admitted call: settled once — to upstream's usage, at its reservation, or released — its
 * lease kept alive until then, its usage event recorded with the settlement (a store with an
 * outbox keeps it in the settle script) or in the sink at once, and the lines it may free told.
 *
 * @example
 * const admission = admittedCall(deps, { key, reservation, reservedPrice, admittedFor, leaseTtlMs, reserved });
 * await admission.settle({ model, inputTokens: 900, outputTokens: 120, status: 200, latencyMs: 850 });
 */
export function admittedCall(deps: AdmittedCallDeps, call: AdmittedCallFacts): GateAdmission {
  const { key, reservation, reservedPrice, admittedFor, leaseTtlMs, reserved } = call;
  let done = false;
  const identity = {
    keyId: key.id,
    name: key.name,
    ...(key.team ? { team: key.team } : {}),
    ...(key.user ? { user: key.user } : {}),
    ...(key.cache !== undefined ? { cache: key.cache } : {}),
  };
  const renewal = keepLeaseAlive(deps.store, reservation, leaseTtlMs);
  const finish = async (actual: { actualTokens: number; actualPicoUsd: number }, event?: UsageEvent) => {
    clearTimeout(renewal.timer);
    // Never rejects: a store that is away gets it later (queued, retried, idempotent).
    await deps.settlements.submit({ reservation, actual, ...(event ? { event } : {}) });
    deps.lines.notify(`key:${key.id}`);
    if (key.team) deps.lines.notify(`team:${key.team}`);
  };
  const record = async (event: UsageEvent, actual: { actualTokens: number; actualPicoUsd: number }) => {
    deps.onUsage?.(event);
    // A store with an outbox keeps the event in the settle script itself: durable once settled,
    // and it waits with its settlement through a store outage. Else the sink takes it at once.
    if (deps.store.keepsUsageEvents) await finish(actual, event);
    else {
      deps.usage.append(event);
      await finish(actual);
    }
  };
  return {
    identity,
    settle: async (usage: GateUsage) => {
      if (done) return;
      done = true;
      const price = deps.pricing.forSettlement(usage.model, reservedPrice, admittedFor);
      const metered = meteredOf(usage);
      const pico = costPicoUsd(price, metered);
      const saved = savedPicoUsd(price, metered);
      const event = settledUsageEvent(reservation.leaseId, key, usage, metered, pico, saved);
      const cacheWrite = metered.cacheWrite5m + metered.cacheWrite1h;
      const tokens = Math.min(metered.input + metered.output + metered.cacheRead + cacheWrite, Number.MAX_SAFE_INTEGER);
      await record(event, { actualTokens: tokens, actualPicoUsd: pico });
    },
    // What the lost-call sweeper charges a call whose process died (../store/open-call.ts
    // `lostCallEvent`): the reservation's tokens and pico-dollars exactly, the event estimated.
    settleAtReservation: async (outcome: GateReservationOutcome) => {
      if (done) return;
      done = true;
      const event = reservationUsageEvent(reservation, key, outcome, reserved);
      await record(event, { actualTokens: reservation.reservedTokens, actualPicoUsd: reservation.reservedPicoUsd });
    },
    release: async () => {
      if (done) return;
      done = true;
      await finish({ actualTokens: reservation.reservedTokens, actualPicoUsd: 0 });
    },
  };
}
