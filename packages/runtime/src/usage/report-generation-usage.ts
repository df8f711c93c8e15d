/**
 * Hands one generation's consumption to the caller's `onUsage` hook. Kept apart from the
 * runtime: the record's shape and the rule that a throwing hook never fails the call live here.
 */
import type { Logger } from "@conduit-ai/server-core";
import type { GenerationPlan } from "../generation/generation-part.js";
import type { UsageRecord } from "../usage-record.js";

/** Reports a generation's consumption to `onUsage`; an aborted or failed one is logged too (info). */
export function reportGenerationUsage(
  onUsage: ((record: UsageRecord) => void) | undefined,
  logger: Logger,
  plan: GenerationPlan,
  sessionId: string | undefined,
  result: Pick<UsageRecord, "outcome" | "usage" | "usageReported" | "outputCharacters">,
): void {
  const record: UsageRecord = {
    provider: plan.provider.name,
    model: plan.model,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(plan.context.requestId === undefined ? {} : { requestId: plan.context.requestId }),
    ...result,
  };
  if (record.outcome !== "finish") logger.info({ usage: record }, `generation ${record.outcome}: usage recorded`);
  try {
    onUsage?.(record);
  } catch (error) {
    logger.warn({ err: error }, "onUsage hook threw");
  }
}
