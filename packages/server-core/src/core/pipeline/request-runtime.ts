import type { ServerContext } from "../../contracts/context.js";
import type { Runtime } from "../../contracts/runtime.js";

/** How a request's routes see the runtime: an adapter around it, such as governance's gated runtime. */
export type RuntimeWrapper = (runtime: Runtime) => Runtime;

const WRAPPERS_KEY = "conduit.runtimeWrappers";

/**
 * Makes the routes this request reaches call their runtime through `wrap`. A gatekeeper's
 * middleware installs its adapter here once per request (governance admits, reserves and settles
 * each model call against the caller's key), so no list of gated paths is kept anywhere.
 *
 * @example
 * handler: async (ctx, next) => { wrapRequestRuntime(ctx, (runtime) => gateRuntime(gate, runtime, options)); await next(); }
 */
export function wrapRequestRuntime(context: Pick<ServerContext, "state">, wrap: RuntimeWrapper): void {
  const list = (context.state[WRAPPERS_KEY] as RuntimeWrapper[] | undefined) ?? [];
  list.push(wrap);
  context.state[WRAPPERS_KEY] = list;
}

/**
 * The runtime a route calls for this request: `runtime` through every wrapper installed on it,
 * the first installed innermost; `runtime` itself when none was.
 *
 * @example
 * handler: (ctx) => requestRuntime(ctx, runtime).generate(ctx.body, callContextOf(ctx))
 */
export function requestRuntime(context: Pick<ServerContext, "state">, runtime: Runtime): Runtime {
  const list = context.state[WRAPPERS_KEY] as RuntimeWrapper[] | undefined;
  return list ? list.reduce((inner, wrap) => wrap(inner), runtime) : runtime;
}
