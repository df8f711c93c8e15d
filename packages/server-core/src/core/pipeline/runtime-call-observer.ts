import type { ServerContext } from "../../contracts/context.js";
import type { TokenUsage } from "../../contracts/runtime.js";

/** How one runtime call of a request ended: what a gatekeeper settles a reservation from. */
export interface RuntimeCallOutcome {
  /** The model that served, when the runtime said (a generate result); streams leave it undefined. */
  model?: string;
  provider?: string;
  /** What the provider reported; undefined when the call failed or the stream ended before its `finish`. */
  usage?: TokenUsage;
  failed: boolean;
}

export type RuntimeCallObserver = (outcome: RuntimeCallOutcome) => void;

const OBSERVERS_KEY = "conduit.runtimeCallObservers";

/**
 * Registers a per-request observer told once how the route's runtime call ended (a generate's
 * result, a stream's final `finish` usage, or a stream the client left). A middleware such as
 * governance's gate registers it before `next()`; routes without a runtime call never call it.
 *
 * @example
 * handler: async (ctx, next) => { observeRuntimeCall(ctx, (outcome) => settle(outcome.usage)); await next(); }
 */
export function observeRuntimeCall(context: Pick<ServerContext, "state">, observer: RuntimeCallObserver): void {
  const list = (context.state[OBSERVERS_KEY] as RuntimeCallObserver[] | undefined) ?? [];
  list.push(observer);
  context.state[OBSERVERS_KEY] = list;
}

function observersOf(context: Pick<ServerContext, "state">): RuntimeCallObserver[] | undefined {
  return context.state[OBSERVERS_KEY] as RuntimeCallObserver[] | undefined;
}

/** Tells the request's observers how its call ended (a throwing observer never breaks the answer). */
export function reportRuntimeCall(context: Pick<ServerContext, "state">, outcome: RuntimeCallOutcome): void {
  for (const observer of observersOf(context) ?? []) {
    try {
      observer(outcome);
    } catch {
      // An observer's bug must not turn a served answer into an error.
    }
  }
}

/**
 * A generate call observed: its result's usage, or a failure, reported once.
 *
 * @example
 * handler: (ctx) => observedCall(ctx, () => runtime.generate(ctx.body, callContextOf(ctx)))
 */
export async function observedCall<T extends { model?: string; provider?: string; usage?: TokenUsage }>(
  context: Pick<ServerContext, "state">,
  call: () => Promise<T>,
): Promise<T> {
  if (!observersOf(context)) return call();
  let result: T;
  try {
    result = await call();
  } catch (error) {
    reportRuntimeCall(context, { failed: true });
    throw error;
  }
  reportRuntimeCall(context, { model: result.model, provider: result.provider, usage: result.usage, failed: false });
  return result;
}

function usageOfEvent(event: unknown): TokenUsage | undefined {
  if (typeof event !== "object" || event === null) return undefined;
  const record = event as { type?: unknown; usage?: TokenUsage; data?: { usage?: TokenUsage } };
  if (record.type !== "finish") return undefined;
  return record.usage ?? record.data?.usage;
}

/**
 * A streamed call observed: the final `finish` event's usage when it came, reported when the
 * stream ends for whatever reason (finished, failed, or the client left and the core returned it).
 *
 * @example
 * handler: (ctx) => observedStream(ctx, runtime.stream(ctx.body, callContextOf(ctx)))
 */
export function observedStream<T>(context: Pick<ServerContext, "state">, source: AsyncIterable<T>): AsyncIterable<T> {
  if (!observersOf(context)) return source;
  return (async function* observe() {
    let usage: TokenUsage | undefined;
    let failed = false;
    try {
      for await (const event of source) {
        usage = usageOfEvent(event) ?? usage;
        if ((event as { type?: unknown } | null)?.type === "error") failed = true;
        yield event;
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      reportRuntimeCall(context, { usage, failed: failed && usage === undefined });
    }
  })();
}
