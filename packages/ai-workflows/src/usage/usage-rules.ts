import type { ModelPrice, ProviderInfo, UsageReport } from "@conduit-ai/server-core";
import type { AnalyzeUsageResult, Recommendation } from "../schemas/analyze-usage-schema.js";

export interface RuleInput {
  report: UsageReport;
  figures: Pick<AnalyzeUsageResult, "tokenUsage" | "costBreakdown">;
  providers: ProviderInfo[];
  priceOf: ((provider: string, model: string) => ModelPrice | undefined) | undefined;
  /** Window length, to project monthly savings. */
  windowMs: number;
}

const MONTH_MS = 2_592_000_000;
const money = (value: number) => Math.round(value * 10_000) / 10_000;

/** A cheaper priced model of the same provider, when one exists. */
function cheaperModel(input: RuleInput, provider: string, model: string): { model: string; price: ModelPrice } | undefined {
  const current = input.priceOf?.(provider, model);
  if (!current) return undefined;
  const blended = (price: ModelPrice) => price.inputPerMillionUsd + 3 * price.outputPerMillionUsd;
  const candidates = (input.providers.find((info) => info.name === provider)?.models ?? [])
    .filter((candidate) => candidate !== model)
    .flatMap((candidate) => {
      const price = input.priceOf?.(provider, candidate);
      // Embedding models have no output price: not a substitute for a chat model.
      return price && price.outputPerMillionUsd > 0 ? [{ model: candidate, price }] : [];
    })
    .filter((candidate) => blended(candidate.price) < blended(current));
  return candidates.sort((a, b) => blended(a.price) - blended(b.price))[0];
}

/**
 * Recommendations from rules over the ledger's figures. Every rule states the figure that
 * triggered it; savings are projected to 30 days from the window's own numbers.
 */
export function usageRecommendations(input: RuleInput): Recommendation[] {
  const { figures, report } = input;
  const total = figures.tokenUsage.total;
  const monthly = input.windowMs > 0 ? MONTH_MS / input.windowMs : 0;
  const recommendations: Recommendation[] = [];
  if (total.calls === 0) return recommendations;

  for (const entry of report.entries) {
    if (entry.operation === "embed" || entry.calls < 5 || entry.costUsd <= 0) continue;
    const averageOutput = entry.outputTokens / entry.calls;
    const cheaper = cheaperModel(input, entry.provider, entry.model);
    if (cheaper && averageOutput < 400) {
      const current = input.priceOf?.(entry.provider, entry.model) as ModelPrice;
      const newCost =
        (entry.inputTokens * cheaper.price.inputPerMillionUsd + entry.outputTokens * cheaper.price.outputPerMillionUsd) / 1_000_000;
      const savings = (entry.costUsd - newCost) * monthly;
      recommendations.push({
        rule: "cheaper-model-for-short-answers",
        title: `Try ${cheaper.model} instead of ${entry.model} for short answers`,
        detail: `${entry.calls} ${entry.operation} calls to ${entry.provider}/${entry.model} averaged ${Math.round(averageOutput)} output tokens and cost $${money(entry.costUsd)}; at ${cheaper.model}'s prices ($${cheaper.price.inputPerMillionUsd}/$${cheaper.price.outputPerMillionUsd} per million tokens vs $${current.inputPerMillionUsd}/$${current.outputPerMillionUsd}) they would cost $${money(newCost)}.`,
        impact: savings > 100 ? "high" : savings > 10 ? "medium" : "low",
        estimatedMonthlySavingsUsd: money(savings),
      });
    }
  }

  for (const provider of figures.tokenUsage.byProvider) {
    const rate = provider.calls > 0 ? provider.failedCalls / provider.calls : 0;
    if (provider.calls >= 5 && rate > 0.05) {
      recommendations.push({
        rule: "high-failure-rate",
        title: `${Math.round(rate * 100)}% of ${provider.provider} calls failed`,
        detail: `${provider.failedCalls} of ${provider.calls} calls failed. Check the provider's status and credentials, lower concurrency if it rate-limits, and configure a second provider to fail over to.`,
        impact: rate > 0.2 ? "high" : "medium",
        estimatedMonthlySavingsUsd: null,
      });
    }
  }

  for (const model of figures.tokenUsage.byModel) {
    if (model.operation === "generate" && model.calls >= 3 && model.averageLatencyMs > 5_000) {
      recommendations.push({
        rule: "slow-generations",
        title: `${model.provider}/${model.model} generations average ${(model.averageLatencyMs / 1000).toFixed(1)} s`,
        detail: `Over ${model.calls} calls (max ${(model.maxLatencyMs / 1000).toFixed(1)} s). Stream the answers (/api/agent/stream) so users see the first words at once, lower maxTokens, or use a faster model for interactive paths.`,
        impact: model.averageLatencyMs > 15_000 ? "high" : "medium",
        estimatedMonthlySavingsUsd: null,
      });
    }
  }

  const inputCost = report.entries.reduce((sum, entry) => {
    const price = input.priceOf?.(entry.provider, entry.model);
    return sum + (price ? (entry.inputTokens * price.inputPerMillionUsd) / 1_000_000 : 0);
  }, 0);
  const generated = report.entries.filter((entry) => entry.operation !== "embed");
  const generatedInput = generated.reduce((sum, entry) => sum + entry.inputTokens, 0);
  const generatedOutput = generated.reduce((sum, entry) => sum + entry.outputTokens, 0);
  if (generatedOutput > 0 && generatedInput / generatedOutput > 8 && generated.reduce((sum, entry) => sum + entry.calls, 0) >= 5) {
    recommendations.push({
      rule: "input-heavy-prompts",
      title: `Prompts are ${Math.round(generatedInput / generatedOutput)}× longer than answers`,
      detail: `${generatedInput} input vs ${generatedOutput} output tokens. Trim conversation history (the runtime's historyLimit), shorten system prompts, or cache repeated context; cutting a quarter of the input would save the amount shown.`,
      impact: inputCost * monthly * 0.25 > 10 ? "medium" : "low",
      estimatedMonthlySavingsUsd: money(inputCost * monthly * 0.25),
    });
  }

  if (figures.costBreakdown.unpricedCalls > 0) {
    recommendations.push({
      rule: "unpriced-models",
      title: `${figures.costBreakdown.unpricedCalls} calls used models without a price`,
      detail:
        "Their cost is not in the totals. Add their prices to the runtime's price table (createRuntime({ usage: { prices } })) so the cost figures are complete.",
      impact: "low",
      estimatedMonthlySavingsUsd: null,
    });
  }

  const remote = input.providers.filter((provider) => provider.name !== "local");
  const localCalls = figures.tokenUsage.byProvider.find((provider) => provider.provider === "local")?.calls ?? 0;
  if (localCalls === total.calls && remote.length === 0) {
    recommendations.push({
      rule: "local-provider-only",
      title: "Every call went to the offline local provider",
      detail:
        "The local provider answers deterministically without a model. Set OPENAI_API_KEY or OPENAI_BASE_URL (any OpenAI-compatible server), or ANTHROPIC_API_KEY, to use a real model.",
      impact: "low",
      estimatedMonthlySavingsUsd: null,
    });
  } else if (remote.length >= 2) {
    const top = [...figures.tokenUsage.byProvider].sort((a, b) => b.calls - a.calls)[0];
    if (top && top.calls / total.calls > 0.9 && total.calls >= 20) {
      recommendations.push({
        rule: "single-provider-concentration",
        title: `${Math.round((top.calls / total.calls) * 100)}% of calls go to ${top.provider}`,
        detail: `${remote.length} providers are configured but one carries nearly all traffic; route a share to the others (or keep them as failover) to ride out its outages and rate limits.`,
        impact: "low",
        estimatedMonthlySavingsUsd: null,
      });
    }
  }

  const buckets = figures.tokenUsage.timeline;
  if (buckets.length >= 4) {
    const mean = buckets.reduce((sum, bucket) => sum + bucket.calls, 0) / buckets.length;
    const peak = buckets.reduce((best, bucket) => (bucket.calls > best.calls ? bucket : best));
    if (peak.calls > 3 * mean && peak.calls >= 10) {
      recommendations.push({
        rule: "traffic-spike",
        title: `Traffic peaked at ${peak.calls} calls in the bucket starting ${peak.start}`,
        detail: `That is ${(peak.calls / mean).toFixed(1)}× the average bucket (${mean.toFixed(1)} calls). Cache repeated prompts and set rate limits per client so a spike cannot exhaust provider quotas.`,
        impact: "medium",
        estimatedMonthlySavingsUsd: null,
      });
    }
  }
  const order = { high: 0, medium: 1, low: 2 } as const;
  return recommendations.sort(
    (a, b) => order[a.impact] - order[b.impact] || (b.estimatedMonthlySavingsUsd ?? 0) - (a.estimatedMonthlySavingsUsd ?? 0),
  );
}
