import type { ModelRoute, ModelRouteInput } from "../config.js";
import { DEFAULT_PRICES, type PriceTable } from "../prices.js";
import { MemoryRoutingStats, type RoutingStats } from "./routing-stats.js";
import { type Deployment, type Strategy, type TokenEstimate, orderOf } from "./strategies.js";

export type { ModelRoute, ModelRouteInput } from "../config.js";

/** Where one attempt goes: the Messages API through the pool, or a runtime provider. */
export type RouteTarget = { kind: "anthropic"; model: string; name: string } | { kind: "runtime"; model: string; name: string };

const ANTHROPIC_PREFIX = "anthropic/";

/**
 * A target string as an attempt. `anthropic/<model>` and names the proxy takes for Claude
 * (`isClaudeModel`) go to the pool; everything else is the runtime's to resolve.
 *
 * @example
 * targetOf("anthropic/claude-haiku-4-5", isClaude); // { kind: "anthropic", model: "claude-haiku-4-5", name: "anthropic/claude-haiku-4-5" }
 */
export function targetOf(target: string, isClaudeModel: (model: string) => boolean): RouteTarget {
  if (target.startsWith(ANTHROPIC_PREFIX)) {
    const model = target.slice(ANTHROPIC_PREFIX.length);
    return { kind: "anthropic", model, name: target };
  }
  if (isClaudeModel(target)) return { kind: "anthropic", model: target, name: `${ANTHROPIC_PREFIX}${target}` };
  return { kind: "runtime", model: target, name: target };
}

/** The attempts of one call, in order, and where their figures go (deployment routes only). */
export interface RoutePlan {
  targets: RouteTarget[];
  stats?: RoutingStats;
}

/** The `models` table as a lookup: public name → the targets to try, in order. */
export interface ModelTable {
  /** The public names, for `/v1/models`. */
  aliases(): string[];
  /** The attempts for `model` in configured order: its targets and fallbacks, or the name itself as the one target. */
  targetsFor(model: string): RouteTarget[];
  /** The configured attempts of a public name; undefined when the table does not name it. */
  configured(model: string): RouteTarget[] | undefined;
  /**
   * The attempts of one call: a deployment route's in its strategy's order, targets whose keys
   * all cool or are disabled moved last, then the fallbacks; any other name as `targetsFor`.
   */
  plan(model: string, estimate?: TokenEstimate): RoutePlan | Promise<RoutePlan>;
}

export interface ModelTableOptions {
  isClaudeModel?: (model: string) => boolean;
  /** In-flight counts and latencies (Redis-backed with several processes); default this process's own. */
  stats?: RoutingStats;
  /** What `cost` prices deployments by (default the built-in table). */
  prices?: PriceTable;
  /** False when a target cannot serve now (every key of its provider cooling or disabled). */
  usable?: (target: RouteTarget) => boolean | Promise<boolean>;
  random?: () => number;
}

interface DeploymentRoute {
  strategy: Strategy;
  deployments: Deployment[];
  targets: RouteTarget[];
  fallbacks: RouteTarget[];
}

/**
 * Builds the routing table of `models`.
 *
 * @example
 * const table = createModelTable({ fast: { target: "anthropic/claude-haiku-4-5", fallbacks: ["local"] } });
 * table.targetsFor("fast").map((target) => target.name); // ["anthropic/claude-haiku-4-5", "local"]
 */
export function createModelTable(
  models: Record<string, ModelRoute | ModelRouteInput> = {},
  isClaudeOrOptions: ((model: string) => boolean) | ModelTableOptions = {},
): ModelTable {
  const options: ModelTableOptions = typeof isClaudeOrOptions === "function" ? { isClaudeModel: isClaudeOrOptions } : isClaudeOrOptions;
  const isClaudeModel = options.isClaudeModel ?? ((model: string) => /^claude/i.test(model));
  const stats = options.stats ?? new MemoryRoutingStats();
  const context = { stats, prices: options.prices ?? DEFAULT_PRICES, random: options.random ?? Math.random };
  const table = new Map<string, RouteTarget[]>();
  const deployed = new Map<string, DeploymentRoute>();
  for (const [name, route] of Object.entries(models)) {
    if (typeof route === "object" && "targets" in route) {
      const deployments = route.targets.map((entry) =>
        typeof entry === "string" ? { name: entry, weight: 1 } : { name: entry.target, weight: entry.weight ?? 1 },
      );
      const entry: DeploymentRoute = {
        strategy: route.strategy ?? "priority",
        deployments,
        targets: deployments.map((deployment) => targetOf(deployment.name, isClaudeModel)),
        fallbacks: (route.fallbacks ?? []).map((target) => targetOf(target, isClaudeModel)),
      };
      deployed.set(name, entry);
      table.set(name, [...entry.targets, ...entry.fallbacks]);
      continue;
    }
    const targets = typeof route === "string" ? [route] : [route.target, ...(route.fallbacks ?? [])];
    table.set(
      name,
      targets.map((target) => targetOf(target, isClaudeModel)),
    );
  }
  const targetsFor = (model: string) => table.get(model) ?? [targetOf(model, isClaudeModel)];
  const ordered = async (route: DeploymentRoute, order: number[]): Promise<RoutePlan> => {
    const targets = [...order.map((index) => route.targets[index] as RouteTarget), ...route.fallbacks];
    if (!options.usable) return { targets, stats };
    const usable = await Promise.all(targets.map((target) => options.usable?.(target)));
    // Not dropped: when nothing is usable the call still gets a real answer (a 429 naming the reset).
    return { targets: [...targets.filter((_, index) => usable[index]), ...targets.filter((_, index) => !usable[index])], stats };
  };
  return {
    aliases: () => [...table.keys()],
    configured: (model) => table.get(model),
    targetsFor,
    plan: (model, estimate) => {
      const route = deployed.get(model);
      if (route === undefined) return { targets: targetsFor(model) };
      const order = orderOf(route.strategy, route.deployments, { ...context, estimate });
      return Array.isArray(order) ? ordered(route, order) : order.then((indices) => ordered(route, indices));
    },
  };
}

/**
 * The models an alias's targets may bill (what a gate prices a reservation at): a pool target's
 * model id, a runtime target's `<provider>/<model>` or bare provider name as configured.
 *
 * @example
 * modelsReachedBy(table.configured("fast")); // ["claude-haiku-4-5", "local"]
 */
export function modelsReachedBy(targets: readonly RouteTarget[] | undefined): string[] | undefined {
  return targets?.map((target) => (target.kind === "anthropic" ? target.model : target.name));
}

/** Statuses that send the request on to the next target: rate limited (every account cooling included) or failing upstream. */
export function isFallbackStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * What an alias of the table may reach, for the gate's reservation (nothing for a plain name).
 *
 * @example
 * call.admit("openai", body, request.model, { text, ...reachable(models, request.model) });
 */
export function reachable(models: ModelTable, model: string): { models?: string[] } {
  const reached = modelsReachedBy(models.configured(model));
  return reached ? { models: reached } : {};
}
