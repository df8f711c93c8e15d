import type { TokenUsage, UsageOperation } from "@conduit-ai/server-core";
import type { UsageLedger } from "./usage-ledger.js";

/** A slow store delays a call by at most this much; the write itself still completes later. */
const RECORD_WAIT_MS = 250;

/**
 * Records one finished call, priced from the ledger's table. Awaited, so the figures include the
 * call once it has answered (another process reading the same Redis sees it), but never longer
 * than RECORD_WAIT_MS and never rejecting: the ledger does not fail or stall the call it describes.
 */
export function recordUsage(
  ledger: UsageLedger | undefined,
  call: { provider: string; model: string; operation: UsageOperation; startedAt: number; usage?: TokenUsage; failed?: boolean },
): Promise<void> {
  if (ledger === undefined) return Promise.resolve();
  const inputTokens = call.usage?.inputTokens ?? 0;
  const outputTokens = call.usage?.outputTokens ?? 0;
  const costUsd = costOfCall(
    ledger,
    call.provider,
    call.model,
    call.usage ?? { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
  );
  const written = ledger
    .record({
      provider: call.provider,
      model: call.model,
      operation: call.operation,
      inputTokens,
      outputTokens,
      latencyMs: performance.now() - call.startedAt,
      costUsd,
      timestamp: Date.now(),
      ...(call.failed ? { failed: true } : {}),
    })
    .catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, RECORD_WAIT_MS);
    timer.unref();
  });
  return Promise.race([written, waited]).finally(() => clearTimeout(timer));
}

/** The ledger's own price function when it has one (the built-in ledgers: server-core's), else input and output at its prices. */
function costOfCall(ledger: UsageLedger, provider: string, model: string, usage: TokenUsage): number | null {
  if (ledger.costOf) return ledger.costOf(provider, model, usage);
  const price = ledger.priceOf(provider, model);
  return price === undefined
    ? null
    : (usage.inputTokens * price.inputPerMillionUsd + usage.outputTokens * price.outputPerMillionUsd) / 1_000_000;
}
