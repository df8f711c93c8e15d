import type { ROUTING_STRATEGIES } from "../config.js";
import { type PriceTable, priceOf } from "../prices.js";
import type { RoutingStats } from "./routing-stats.js";

export type Strategy = (typeof ROUTING_STRATEGIES)[number];

/** One deployment of a routing name: a target and its share under `weighted`. */
export interface Deployment {
  name: string;
  weight: number;
}

/** The tokens a call is expected to spend, for `cost`. */
export interface TokenEstimate {
  inputTokens: number;
  outputTokens: number;
}

/** Share of calls `latency` sends to a target other than the fastest, so every figure stays fresh. */
export const LATENCY_EXPLORATION = 0.04;

export interface StrategyContext {
  stats: RoutingStats;
  prices: PriceTable;
  estimate?: TokenEstimate | undefined;
  random: () => number;
}

/** Indices `0..n-1` with `first` moved to the front, the rest in config order. */
function withFirst(count: number, first: number): number[] {
  const order = [first];
  for (let index = 0; index < count; index++) if (index !== first) order.push(index);
  return order;
}

/** Indices sorted by `score` (lower first), ties in config order; undefined scores last. */
function byScore(scores: ReadonlyArray<number | undefined>): number[] {
  return scores
    .map((score, index) => ({ score: score ?? Number.POSITIVE_INFINITY, index }))
    .sort((a, b) => a.score - b.score || a.index - b.index)
    .map((entry) => entry.index);
}

function weightedPick(deployments: readonly Deployment[], random: () => number): number {
  const total = deployments.reduce((sum, deployment) => sum + deployment.weight, 0);
  let point = random() * total;
  for (const [index, deployment] of deployments.entries()) {
    point -= deployment.weight;
    if (point < 0) return index;
  }
  return deployments.length - 1;
}

function latencyOrder(deployments: readonly Deployment[], context: StrategyContext): number[] | Promise<number[]> {
  const averages = context.stats.latencies(deployments.map((deployment) => deployment.name));
  return Array.isArray(averages) ? byLatency(averages, context) : averages.then((figures) => byLatency(figures, context));
}

function byLatency(averages: ReadonlyArray<number | undefined>, context: StrategyContext): number[] {
  const count = averages.length;
  // Warm-up: a target without a figure yet is tried first.
  const unmeasured = averages.indexOf(undefined);
  if (unmeasured !== -1) return withFirst(count, unmeasured);
  const order = byScore(averages);
  if (count > 1 && context.random() < LATENCY_EXPLORATION) {
    const other = order[1 + Math.floor(context.random() * (order.length - 1))] as number;
    return withFirst(count, other);
  }
  return order;
}

function costOrder(deployments: readonly Deployment[], context: StrategyContext): number[] {
  const estimate = context.estimate ?? { inputTokens: 1000, outputTokens: 500 };
  return byScore(
    deployments.map((deployment) => {
      const price = priceOf(context.prices, deployment.name);
      return price === undefined ? undefined : estimate.inputTokens * price.input + estimate.outputTokens * price.output;
    }),
  );
}

/**
 * The order to try a routing name's deployments in: the strategy's choice first, then the
 * others (a 429, 5xx, connect error or timeout moves the call on). `least-busy` and `latency`
 * read their figures from Redis with several processes, hence the promise.
 *
 * @example
 * orderOf("weighted", [{ name: "groq/llama", weight: 3 }, { name: "local", weight: 1 }], context); // [0, 1] three times in four
 */
export function orderOf(strategy: Strategy, deployments: readonly Deployment[], context: StrategyContext): number[] | Promise<number[]> {
  switch (strategy) {
    case "priority":
      return deployments.map((_, index) => index);
    case "weighted":
      return withFirst(deployments.length, weightedPick(deployments, context.random));
    case "latency":
      return latencyOrder(deployments, context);
    case "cost":
      return costOrder(deployments, context);
    case "least-busy": {
      const counts = context.stats.inFlight(deployments.map((deployment) => deployment.name));
      return Array.isArray(counts) ? byScore(counts) : counts.then(byScore);
    }
  }
}

/**
 * A call's expected tokens for `cost`: the admission's estimate when there is one, else about
 * four characters per token of the body, and `max_tokens` or 500 out.
 */
export function tokenEstimateOf(bodyText: string, admission?: { estimatedInputTokens: number; maxOutputTokens?: number }): TokenEstimate {
  return {
    inputTokens: admission?.estimatedInputTokens || Math.ceil(bodyText.length / 4),
    outputTokens: admission?.maxOutputTokens ?? 500,
  };
}
