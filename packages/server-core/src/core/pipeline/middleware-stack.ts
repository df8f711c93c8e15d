import type { MiddlewareDefinition, Next } from "../../contracts/middleware.js";
import type { ServerContext } from "../../contracts/context.js";
import { MAX_FUSED_HOOKS, type MiddlewareHooks, hooksOf, runHooks } from "./middleware-hooks.js";
import { pathMatchesFilter } from "./path-pattern.js";

const DEFAULT_ORDER = 100;

function applies(middleware: MiddlewareDefinition, path: string, basePath: string): boolean {
  const relative = basePath !== "" && path.startsWith(basePath) ? path.slice(basePath.length) || "/" : undefined;
  const matches = (filter: string) => pathMatchesFilter(path, filter) || (relative !== undefined && pathMatchesFilter(relative, filter));
  if (middleware.excludePaths?.some(matches)) return false;
  return middleware.paths === undefined || middleware.paths.some(matches);
}

/** Distinct paths whose global chain is remembered; past it the memory starts over (paths with ids are unbounded). */
const CHAIN_CACHE_LIMIT = 1_000;

/** Global middleware kept sorted by `order` (stable for equal orders), whenever it was registered. */
export class MiddlewareStack {
  private readonly items: MiddlewareDefinition[] = [];
  /** Global chain per path: filtering every middleware's `paths` on each request is a hot-path cost. */
  private readonly chains = new Map<string, MiddlewareDefinition[]>();

  add(middleware: MiddlewareDefinition): void {
    this.chains.clear();
    this.items.push(middleware);
    const order = (item: MiddlewareDefinition) => item.order ?? DEFAULT_ORDER;
    // Array.prototype.sort is stable, so equal orders keep registration order.
    this.items.sort((a, b) => order(a) - order(b));
  }

  get size(): number {
    return this.items.length;
  }

  list(): readonly MiddlewareDefinition[] {
    return this.items;
  }

  /** The chain for one request (do not mutate it): global middleware that applies to the path, then the route's own. */
  forRequest(path: string, basePath: string, routeMiddleware?: MiddlewareDefinition[]): MiddlewareDefinition[] {
    const key = `${basePath} ${path}`;
    let global = this.chains.get(key);
    if (!global) {
      global = this.items.filter((item) => applies(item, path, basePath));
      if (this.chains.size >= CHAIN_CACHE_LIMIT) this.chains.clear();
      this.chains.set(key, global);
      compiled.set(global, compile(global));
    }
    if (!routeMiddleware || routeMiddleware.length === 0) return global;
    return [...global, ...routeMiddleware.filter((item) => applies(item, path, basePath))];
  }

  /**
   * Koa-style onion: each middleware awaits `next()` to run the rest; calling `next()` twice
   * is an error. No async wrapper per level: a middleware's own promise is passed through.
   * Consecutive built-in middleware made of hooks (the default stack) run as one frame.
   */
  static run(chain: MiddlewareDefinition[], context: ServerContext, terminal: () => Promise<void>): Promise<void> {
    // A global chain was compiled when cached; one with route middleware is built per request anyway.
    const steps = compiled.get(chain) ?? compile(chain);
    const dispatch = (index: number): Promise<void> => {
      const step = steps[index];
      if (!step) return terminal();
      if (step.hooks) return runHooks(step.hooks, context, () => dispatch(index + 1));
      const middleware = step.middleware;
      let called = false;
      const next: Next = () => {
        if (called) return Promise.reject(new Error(`next() called twice in middleware "${middleware.name}"`));
        called = true;
        return dispatch(index + 1);
      };
      try {
        const result = middleware.handler(context, next);
        return result instanceof Promise ? result : Promise.resolve(result);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  }
}

/** One frame of a chain: a middleware's own handler, or a run of hook-built ones fused. */
type Step = { middleware: MiddlewareDefinition; hooks?: undefined } | { hooks: MiddlewareHooks[] };

/** Steps of the cached global chains. */
const compiled = new WeakMap<MiddlewareDefinition[], Step[]>();

function compile(chain: MiddlewareDefinition[]): Step[] {
  const steps: Step[] = [];
  let run: MiddlewareHooks[] | undefined;
  for (const middleware of chain) {
    const hooks = hooksOf(middleware);
    if (!hooks) {
      run = undefined;
      steps.push({ middleware });
      continue;
    }
    if (!run || run.length === MAX_FUSED_HOOKS) {
      run = [];
      steps.push({ hooks: run });
    }
    run.push(hooks);
  }
  return steps;
}
