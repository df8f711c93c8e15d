import type { z } from "zod";
import type { modelRouteSchema } from "../config.js";

// The route schema is part of the proxy's config (below routing in the floor plan).
export type ModelRouteInput = z.input<typeof modelRouteSchema>;
export type ModelRoute = z.output<typeof modelRouteSchema>;

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

/** The `models` table as a lookup: public name → the targets to try, in order. */
export interface ModelTable {
  /** The public names, for `/v1/models`. */
  aliases(): string[];
  /** The attempts for `model`: its configured target and fallbacks, or the name itself as the one target. */
  targetsFor(model: string): RouteTarget[];
  /** The configured attempts of a public name; undefined when the table does not name it. */
  configured(model: string): RouteTarget[] | undefined;
}

/**
 * Builds the routing table of `proxy.models`.
 *
 * @example
 * const table = createModelTable({ fast: { target: "anthropic/claude-haiku-4-5", fallbacks: ["local"] } });
 * table.targetsFor("fast").map((target) => target.name); // ["anthropic/claude-haiku-4-5", "local"]
 */
export function createModelTable(
  models: Record<string, ModelRoute | ModelRouteInput> = {},
  isClaudeModel: (model: string) => boolean = (model) => /^claude/i.test(model),
): ModelTable {
  const table = new Map<string, RouteTarget[]>();
  for (const [name, route] of Object.entries(models)) {
    const targets = typeof route === "string" ? [route] : [route.target, ...(route.fallbacks ?? [])];
    table.set(
      name,
      targets.map((target) => targetOf(target, isClaudeModel)),
    );
  }
  return {
    aliases: () => [...table.keys()],
    configured: (model) => table.get(model),
    targetsFor: (model) => table.get(model) ?? [targetOf(model, isClaudeModel)],
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
