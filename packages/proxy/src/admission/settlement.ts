import type { GateReservationOutcome, GateUsage } from "@conduit-ai/server-core";
import type { MeteredUsage } from "@conduit-ai/server-core/pricing";
import type { TapOutcome } from "../relay/body-tap.js";
import { isFallbackStatus } from "../routing/model-table.js";
import type { TargetUsage } from "../targets/target.js";
import type { Admitted } from "./client-admission.js";

/** How a surface names what served a call in the usage it settles. */
export interface SettlementTarget {
  /** `anthropic`, `codex`, or the runtime provider. */
  vendor: string;
  /** The model the client asked for (used when upstream reported none). */
  model: string | undefined;
}

/**
 * Settles an admission from a relayed answer: the usage upstream reported (a stream cut short:
 * what it reported so far), zero for an error answer, and — when a cut stream reported nothing —
 * the reservation itself, exactly as the gate holds it (`settleAtReservation`).
 *
 * @example
 * relay(body, { headers, signal, onAnswered: settleFromAnswer(admitted, { vendor: "anthropic", model }) });
 */
export function settleFromAnswer(admitted: Admitted, target: SettlementTarget): (status: number, outcome: TapOutcome) => void {
  const started = performance.now();
  return (status, outcome) => {
    const latencyMs = Math.round(performance.now() - started);
    const scanned = outcome.usage;
    if (!scanned) {
      if (!outcome.completed) return admitted.settleAtReservation(reservationOutcome(target, status, latencyMs));
      return admitted.settle({ ...zeroUsage(target, status, latencyMs) });
    }
    const model = scanned.model === "unknown" ? (target.model ?? "unknown") : scanned.model;
    admitted.settle({
      model,
      target: `${target.vendor}/${model}`,
      ...gateUsageOf(scanned.usage),
      status,
      latencyMs,
    });
  };
}

/** The one usage shape as the gate settles it (`GateUsage`'s token fields). */
export function gateUsageOf(
  usage: MeteredUsage,
): Pick<
  GateUsage,
  "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "cacheWrite1hTokens" | "reasoningTokens" | "serverTools"
> {
  return {
    inputTokens: usage.input,
    outputTokens: usage.output,
    cacheReadTokens: usage.cacheRead,
    cacheWriteTokens: usage.cacheWrite5m,
    cacheWrite1hTokens: usage.cacheWrite1h,
    reasoningTokens: usage.reasoning,
    serverTools: usage.serverTools,
  };
}

function zeroUsage(target: SettlementTarget, status: number, latencyMs: number): GateUsage {
  const model = target.model ?? "unknown";
  return { model, target: `${target.vendor}/${model}`, inputTokens: 0, outputTokens: 0, status, latencyMs };
}

/**
 * A call settled at its reservation, named by what it was sent to (the price is the reservation's).
 *
 * @example
 * admitted.settleAtReservation(reservationOutcome({ vendor: "anthropic", model }, 499, 0));
 */
export function reservationOutcome(target: SettlementTarget, status: number, latencyMs: number): GateReservationOutcome {
  return {
    status,
    latencyMs,
    ...(target.model !== undefined ? { model: target.model, target: `${target.vendor}/${target.model}` } : {}),
  };
}

/** How a surface names what upstream did not name in the usage a target reported. */
export interface TargetSettlementOptions {
  /** A gate settles usage: the pool's answers are counted (without one only runtime answers are reported). */
  gated: boolean;
  /** A later target exists: an answer it replaces (a 429/5xx) is not the call's usage. */
  hasFallback: boolean;
  /** The model of a pool answer that reports none (and of its reservation). */
  poolModel: string | undefined;
  /** The model a runtime answer's reservation is named by, from what served it. */
  reservationModel: (servedBy: string) => string | undefined;
}

/**
 * The one settlement hook a surface hands a target (`TargetCall.onUsage`): a pool answer as
 * `settleFromAnswer` reads it; a runtime answer with the tokens its provider reported, priced by
 * the model that served; none reported (cut, failed) — the reservation stands, as the gate holds it.
 *
 * @example
 * const onUsage = settleTargetUsage(admitted, { gated, hasFallback, poolModel: model, reservationModel: () => model });
 */
export function settleTargetUsage(admitted: Admitted, options: TargetSettlementOptions): (usage: TargetUsage) => void {
  const pool = options.gated ? settleFromAnswer(admitted, { vendor: "anthropic", model: options.poolModel }) : undefined;
  const started = performance.now();
  return (reported) => {
    if (reported.from === "pool") {
      if (pool && !(options.hasFallback && isFallbackStatus(reported.status))) pool(reported.status, reported.outcome);
      return;
    }
    const latencyMs = Math.round(performance.now() - started);
    const usage = reported.usage;
    if (!usage)
      return admitted.settleAtReservation(
        reservationOutcome({ vendor: "runtime", model: options.reservationModel(reported.servedBy) }, 200, latencyMs),
      );
    admitted.settle({
      model: reported.model,
      target: `runtime/${reported.servedBy}`,
      ...gateUsageOf(usage),
      status: 200,
      latencyMs,
    });
  };
}
