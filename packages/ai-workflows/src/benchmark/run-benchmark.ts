import { type Runtime, type ServerContext, ServerValidationError } from "@conduit-ai/server-core";
import type { BenchmarkRequest, BenchmarkResult } from "../schemas/benchmark-schema.js";
import { isCallerRefusal } from "../provider/structured-output.js";
import { latencySummary } from "./percentiles.js";
import { scoreAnswer } from "./quality-score.js";

export interface BenchmarkSettings {
  /** One run may take this long before it counts as failed (default 15 s). */
  callTimeoutMs: number;
  /** No new run starts after this (default 25 s), so a benchmark fits the request timeout. */
  budgetMs: number;
}

interface Run {
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  promptIndex: number;
  content: string;
}

interface ProviderRuns {
  provider: string;
  model: string | undefined;
  runs: Run[];
  failures: number;
  errors: Set<string>;
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

async function runProvider(
  runtime: Runtime,
  provider: string,
  request: BenchmarkRequest,
  deadline: number,
  settings: BenchmarkSettings,
  { abortSignal: signal, traceSpan, user, requestId }: Pick<ServerContext, "abortSignal" | "traceSpan" | "user"> & { requestId?: string },
): Promise<ProviderRuns> {
  const outcome: ProviderRuns = { provider, model: request.model, runs: [], failures: 0, errors: new Set() };
  // Sequential per provider, so one run's latency is not another's queueing.
  for (let iteration = 0; iteration < request.iterations; iteration++) {
    for (const [promptIndex, prompt] of request.testPrompts.entries()) {
      if (performance.now() > deadline || signal.aborted) return outcome;
      const started = performance.now();
      try {
        const result = await runtime.generate(
          { input: { text: prompt }, provider, ...(request.model ? { model: request.model } : {}), maxTokens: request.maxTokens },
          {
            signal: AbortSignal.any([signal, AbortSignal.timeout(settings.callTimeoutMs)]),
            ...(traceSpan ? { traceSpan } : {}),
            ...(user ? { user } : {}),
            ...(requestId ? { requestId } : {}),
          },
        );
        outcome.model ??= result.model;
        outcome.runs.push({
          latencyMs: performance.now() - started,
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          promptIndex,
          content: result.content,
        });
      } catch (error) {
        // A gate's refusal (no budget left) ends the benchmark with it: the caller's answer, not a failed run.
        if (isCallerRefusal(error)) throw error;
        outcome.failures++;
        if (outcome.errors.size < 5) outcome.errors.add(error instanceof Error ? error.message.slice(0, 300) : String(error));
      }
    }
  }
  return outcome;
}

/**
 * `benchmark-performance`: runs every prompt `iterations` times against each available provider
 * (local included; providers in parallel, runs within a provider one after another) and reports
 * latency percentiles, output tokens per second, quality scores and cost efficiency.
 */
export async function runBenchmark(
  runtime: Runtime | undefined,
  request: BenchmarkRequest,
  ctx: Pick<ServerContext, "abortSignal" | "traceSpan" | "user"> & { requestId?: string },
  settings: BenchmarkSettings,
): Promise<BenchmarkResult> {
  const available = runtime
    ? (await runtime.listProviders()).filter((provider) => provider.available).map((provider) => provider.name)
    : [];
  const wanted = request.provider ? [request.provider] : request.providers && request.providers.length > 0 ? request.providers : available;
  const unknown = wanted.filter((name) => !available.includes(name));
  if (unknown.length > 0 || runtime === undefined) {
    const field = request.provider ? "body.provider" : "body.providers";
    throw new ServerValidationError("Request validation failed", [
      { field, message: `Unknown provider(s) ${unknown.join(", ")}. Available: ${available.join(", ") || "none"}`, value: unknown },
    ]);
  }
  const deadline = performance.now() + settings.budgetMs;
  const outcomes = await Promise.all(wanted.map((provider) => runProvider(runtime, provider, request, deadline, settings, ctx)));
  const label = (outcome: ProviderRuns) => `${outcome.provider}/${outcome.model ?? "default"}`;
  const latencyResults = outcomes.map((outcome) => {
    const seconds = outcome.runs.reduce((sum, run) => sum + run.latencyMs, 0) / 1000;
    const outputTokens = outcome.runs.reduce((sum, run) => sum + run.outputTokens, 0);
    return {
      provider: outcome.provider,
      model: outcome.model ?? "default",
      runs: outcome.runs.length + outcome.failures,
      failures: outcome.failures,
      latencyMs: latencySummary(outcome.runs.map((run) => run.latencyMs)),
      outputTokensPerSecond: seconds > 0 ? round(outputTokens / seconds, 1) : null,
      totalInputTokens: outcome.runs.reduce((sum, run) => sum + run.inputTokens, 0),
      totalOutputTokens: outputTokens,
      errors: [...outcome.errors],
    };
  });
  const qualityScores = request.includeQualityMetrics ? outcomes.map((outcome) => qualityOf(outcome, request.testPrompts)) : [];
  const costEfficiency = outcomes.map((outcome, index) => {
    const price = outcome.model ? runtime.usage?.priceOf?.(outcome.provider, outcome.model) : undefined;
    const totals = latencyResults[index] as (typeof latencyResults)[number];
    const cost = price
      ? (totals.totalInputTokens * price.inputPerMillionUsd + totals.totalOutputTokens * price.outputPerMillionUsd) / 1_000_000
      : null;
    const quality = qualityScores[index]?.overall ?? qualityOf(outcome, request.testPrompts).overall;
    return {
      provider: outcome.provider,
      model: outcome.model ?? "default",
      priced: price !== undefined,
      totalCostUsd: cost === null ? null : round(cost, 8),
      costPerThousandOutputTokensUsd:
        cost !== null && totals.totalOutputTokens > 0 ? round((cost / totals.totalOutputTokens) * 1000, 8) : null,
      qualityPerDollar: cost !== null && cost > 0 && outcome.runs.length > 0 ? round(quality / cost, 2) : null,
    };
  });
  const best = <T>(items: T[], value: (item: T) => number | null, pick: "min" | "max"): T | undefined =>
    items
      .filter((item) => value(item) !== null)
      .sort((a, b) => (pick === "min" ? 1 : -1) * ((value(a) as number) - (value(b) as number)))[0];
  const fastest = best(outcomes, (outcome) => latencyResults[outcomes.indexOf(outcome)]?.latencyMs?.p50 ?? null, "min");
  const bestQuality = request.includeQualityMetrics
    ? best(outcomes, (outcome) => (outcome.runs.length > 0 ? (qualityScores[outcomes.indexOf(outcome)]?.overall ?? null) : null), "max")
    : undefined;
  const efficient = best(outcomes, (outcome) => costEfficiency[outcomes.indexOf(outcome)]?.qualityPerDollar ?? null, "max");
  const completed = outcomes.reduce((sum, outcome) => sum + outcome.runs.length + outcome.failures, 0);
  const planned = wanted.length * request.iterations * request.testPrompts.length;
  const remoteRun = outcomes.some((outcome) => outcome.provider !== "local");
  return {
    latencyResults,
    qualityScores,
    costEfficiency,
    summary: {
      runsPlanned: planned,
      runsCompleted: completed,
      budgetExhausted: completed < planned && !ctx.abortSignal.aborted,
      fastest: fastest ? label(fastest) : null,
      bestQuality: bestQuality ? label(bestQuality) : null,
      mostCostEfficient: efficient ? label(efficient) : null,
    },
    // Measured, not simulated, whenever a real provider ran; a local-only run measures the offline stand-in.
    simulated: !remoteRun,
    provider: remoteRun && wanted.length === 1 ? (wanted[0] as string) : null,
    model: remoteRun && wanted.length === 1 ? (outcomes[0]?.model ?? null) : null,
  };
}

function qualityOf(outcome: ProviderRuns, prompts: string[]): BenchmarkResult["qualityScores"][number] {
  const perPrompt = prompts.flatMap((prompt, promptIndex) => {
    const runs = outcome.runs.filter((run) => run.promptIndex === promptIndex);
    if (runs.length === 0) return [];
    const scores = runs.map((run) => scoreAnswer(prompt, run.content));
    const mean = (key: "length" | "instructionKeywords" | "formatAdherence" | "overall") =>
      round(scores.reduce((sum, score) => sum + score[key], 0) / scores.length);
    return [
      {
        promptIndex,
        overall: mean("overall"),
        length: mean("length"),
        instructionKeywords: mean("instructionKeywords"),
        formatAdherence: mean("formatAdherence"),
        expectedFormat: scores[0]?.expectedFormat ?? "text",
      },
    ];
  });
  const mean = (key: "length" | "instructionKeywords" | "formatAdherence" | "overall") =>
    perPrompt.length > 0 ? round(perPrompt.reduce((sum, score) => sum + score[key], 0) / perPrompt.length) : 0;
  return {
    provider: outcome.provider,
    model: outcome.model ?? "default",
    overall: mean("overall"),
    length: mean("length"),
    instructionKeywords: mean("instructionKeywords"),
    formatAdherence: mean("formatAdherence"),
    perPrompt,
  };
}
