import type { GateReservationOutcome, GateUsage } from "@conduit-ai/server-core";
import { type MeteredUsage, PICO_USD_PER_USD } from "@conduit-ai/server-core/pricing";
import type { Reservation } from "../store/governance-store.js";
import type { UsageEvent } from "../usage/usage-event.js";

/** Tokens of one kind a usage report may settle (a larger one is upstream's error: counted at this). */
const MAX_REPORTED_TOKENS = 10_000_000_000;

/** The key of an admitted call, as its usage event names it. */
interface EventKey {
  id: string;
  team?: string;
  user?: string;
}

/** A count as the counters take it: a non-negative integer, capped; anything else (NaN, negative) is 0. */
function countOf(value: number | undefined, cap: number): number {
  return typeof value === "number" && value > 0 ? Math.min(Math.round(value), cap) : 0;
}

/** A settled call's usage in the one shape the price function takes, each count capped. */
export function meteredOf(usage: GateUsage): MeteredUsage {
  const output = countOf(usage.outputTokens, MAX_REPORTED_TOKENS);
  const searches = countOf(usage.serverTools?.webSearch, MAX_REPORTED_TOKENS);
  return {
    input: countOf(usage.inputTokens, MAX_REPORTED_TOKENS),
    output,
    cacheRead: countOf(usage.cacheReadTokens, MAX_REPORTED_TOKENS),
    cacheWrite5m: countOf(usage.cacheWriteTokens, MAX_REPORTED_TOKENS),
    cacheWrite1h: countOf(usage.cacheWrite1hTokens, MAX_REPORTED_TOKENS),
    reasoning: Math.min(output, countOf(usage.reasoningTokens, MAX_REPORTED_TOKENS)),
    serverTools: searches > 0 ? { webSearch: searches } : {},
  };
}

/**
 * The usage event of a call settled to what upstream reported: its tokens as metered, its cost
 * and what the response cache saved, in pico-dollars.
 *
 * @example
 * const event = settledUsageEvent(reservation.leaseId, key, usage, meteredOf(usage), pico, saved);
 */
export function settledUsageEvent(
  leaseId: string,
  key: EventKey,
  usage: GateUsage,
  metered: MeteredUsage,
  pico: number,
  saved: number,
): UsageEvent {
  return {
    id: leaseId,
    time: new Date().toISOString(),
    key: key.id,
    ...(key.team ? { team: key.team } : {}),
    ...(key.user ? { user: key.user } : {}),
    model: usage.model,
    ...(usage.target ? { target: usage.target } : {}),
    inputTokens: metered.input,
    outputTokens: metered.output,
    cacheReadTokens: metered.cacheRead,
    cacheWriteTokens: metered.cacheWrite5m + metered.cacheWrite1h,
    ...(metered.cacheWrite1h > 0 ? { cacheWrite1hTokens: metered.cacheWrite1h } : {}),
    ...(metered.reasoning > 0 ? { reasoningTokens: metered.reasoning } : {}),
    ...(metered.serverTools.webSearch ? { webSearchRequests: metered.serverTools.webSearch } : {}),
    costUsd: pico / PICO_USD_PER_USD,
    ...(saved > 0 ? { savedUsd: saved / PICO_USD_PER_USD } : {}),
    status: usage.status,
    latencyMs: usage.latencyMs,
    ...(usage.tool ? { kind: "tool" as const, server: usage.tool.server, tool: usage.tool.name } : {}),
    ...(usage.guardrails && usage.guardrails.length > 0 ? { guardrails: usage.guardrails } : {}),
    ...(usage.savedUsd !== undefined && Number.isFinite(usage.savedUsd) && usage.savedUsd > 0 ? { savedUsd: usage.savedUsd } : {}),
  };
}

/**
 * The usage event of a call settled at its reservation — what the lost-call sweeper charges a
 * call whose process died (../store/open-call.ts `lostCallEvent`): the reservation's tokens and
 * pico-dollars exactly, the event estimated.
 *
 * @example
 * const event = reservationUsageEvent(reservation, key, { status: 499, latencyMs: 12 }, { model, inputTokens, outputTokens });
 */
export function reservationUsageEvent(
  reservation: Pick<Reservation, "leaseId" | "reservedPicoUsd">,
  key: EventKey,
  outcome: GateReservationOutcome,
  reserved: { model: string; inputTokens: number; outputTokens: number },
): UsageEvent {
  return {
    id: reservation.leaseId,
    time: new Date().toISOString(),
    key: key.id,
    ...(key.team ? { team: key.team } : {}),
    ...(key.user ? { user: key.user } : {}),
    model: outcome.model ?? reserved.model,
    ...(outcome.target ? { target: outcome.target } : {}),
    inputTokens: reserved.inputTokens,
    outputTokens: reserved.outputTokens,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: reservation.reservedPicoUsd / 1e12,
    status: outcome.status,
    latencyMs: outcome.latencyMs,
    ...(outcome.guardrails?.length ? { guardrails: outcome.guardrails } : {}),
    estimated: true,
  };
}
