import type { GateUsage } from "@conduit-ai/server-core";
import type { TapOutcome } from "../relay/body-tap.js";
import type { AdmissionRequest, Admitted } from "./client-admission.js";

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
 * the reservation itself (the estimate stands, nothing is released).
 *
 * @example
 * relay(body, { headers, signal, onAnswered: settleFromAnswer(admitted, request, { vendor: "anthropic", model }) });
 */
export function settleFromAnswer(
  admitted: Admitted,
  request: AdmissionRequest,
  target: SettlementTarget,
): (status: number, outcome: TapOutcome) => void {
  const started = performance.now();
  return (status, outcome) => {
    const latencyMs = Math.round(performance.now() - started);
    const scanned = outcome.usage;
    if (!scanned) {
      if (!outcome.completed) return admitted.settle(reservationUsage(request, target, status, latencyMs));
      return admitted.settle({ ...zeroUsage(target, status, latencyMs) });
    }
    const model = scanned.model === "unknown" ? (target.model ?? "unknown") : scanned.model;
    admitted.settle({
      model,
      target: `${target.vendor}/${model}`,
      inputTokens: scanned.usage.inputTokens,
      outputTokens: scanned.usage.outputTokens,
      cacheReadTokens: scanned.usage.cacheReadTokens,
      cacheWriteTokens: scanned.usage.cacheCreationTokens,
      status,
      latencyMs,
    });
  };
}

function zeroUsage(target: SettlementTarget, status: number, latencyMs: number): GateUsage {
  const model = target.model ?? "unknown";
  return { model, target: `${target.vendor}/${model}`, inputTokens: 0, outputTokens: 0, status, latencyMs };
}

/** The reservation as usage: the estimated input and the whole `max_tokens`. */
export function reservationUsage(request: AdmissionRequest, target: SettlementTarget, status: number, latencyMs: number): GateUsage {
  return {
    ...zeroUsage(target, status, latencyMs),
    inputTokens: request.estimatedInputTokens,
    outputTokens: request.maxOutputTokens ?? 0,
  };
}
