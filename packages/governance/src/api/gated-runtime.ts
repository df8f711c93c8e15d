import type {
  DataStreamEvent,
  GateAdmission,
  GateGuardrailHit,
  GateRefusal,
  GateSurface,
  Runtime,
  RuntimeCallContext,
  TokenUsage,
} from "@conduit-ai/server-core";
import { callGuardrailHitsOf } from "@conduit-ai/server-core/internal";
import type { GovernanceGate } from "../gate/governance-gate.js";
import { apiRefusalError } from "./api-refusal.js";
import { gateTokensOf } from "./runtime-usage.js";
import { type WorkRequest, estimateInputTokens, outputCapOf } from "./work-request.js";

/** What the live feed learns of a gated call: the model, then what it used. */
export interface GatedCallAnnotation {
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
}

export interface GateRuntimeOptions {
  /** What the gate records the calls as (`ws`, `api`). */
  surface: GateSurface;
  /** Output tokens reserved when a request names no `maxTokens`. */
  defaultMaxOutputTokens: number;
  /** The caller's key digest from the call's context; none → the call is refused (401), never run unadmitted. */
  digestOf: (context: RuntimeCallContext | undefined) => string | undefined;
  /** The call's own timeout (the route's, else the server's): its lease lasts this long plus the margin. */
  timeoutMs?: number;
  /**
   * The model a request naming none runs on (`runtimeDefaultModel`): its reservation is priced
   * by it. Without it such a request reserves at the dearest price known.
   */
  defaultModel?: () => Promise<string | undefined>;
  /** Told the model a call named when admitted, and the model and tokens it settled at. */
  annotate?: (annotation: GatedCallAnnotation) => void;
  /** Told of a refusal before it is thrown (an HTTP surface says `x-should-retry: false` for a final one). */
  onRefused?: (refusal: GateRefusal) => void;
  /**
   * The guardrail hits of the call's request so far, settled with its usage event. Without it, the
   * hits a guardrails runtime inside this one recorded on the call (`recordCallGuardrailHits`).
   */
  guardrailHits?: () => readonly GateGuardrailHit[] | undefined;
}

/**
 * The runtime's default model as `<provider>/<model>` (asked once), or undefined when it names none.
 *
 * @example
 * const defaultModel = runtimeDefaultModel(runtime); await defaultModel(); // "local/echo"
 */
export function runtimeDefaultModel(runtime: Pick<Runtime, "listProviders"> | undefined): () => Promise<string | undefined> {
  let answer: Promise<string | undefined> | undefined;
  return () => {
    answer ??= (async () => {
      const providers = (await runtime?.listProviders().catch(() => [])) ?? [];
      const provider = providers.find((candidate) => candidate.default) ?? providers[0];
      const model = provider?.models[0];
      return provider && model ? `${provider.name}/${model}` : undefined;
    })();
    return answer;
  };
}

const GUARDRAIL_VIOLATION = "guardrail_violation";

/** A guardrail's block of the call: the server's `guardrail_violation` error (whichever copy of the guardrails threw it). */
const isGuardrailBlock = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === GUARDRAIL_VIOLATION;

/**
 * A call a guardrail blocked, settled as a 400 with its hits in the usage event: a request the
 * model never saw is charged nothing; a response stopped after the model answered is charged
 * what was reserved (its real usage never reached the gate).
 */
async function settleBlocked(
  admission: GateAdmission,
  model: string | undefined,
  hits: readonly GateGuardrailHit[] | undefined,
  started: number,
): Promise<void> {
  const outcome = {
    status: 400,
    latencyMs: performance.now() - started,
    ...(hits?.length ? { guardrails: [...hits] } : {}),
  };
  const answered = hits?.some((hit) => hit.action === "block" && hit.direction === "response");
  if (answered && admission.settleAtReservation) await admission.settleAtReservation({ ...(model ? { model } : {}), ...outcome });
  else await admission.settle({ model: model ?? "unknown", inputTokens: 0, outputTokens: 0, ...outcome });
}

interface Admitted {
  decision: GateAdmission;
  model: string | undefined;
}

/**
 * The runtime as the gate sees it, the one adapter between the gate and every AI surface that
 * calls a runtime (`/api/agent/*`, the `/api/ai` workflows, the `/ws` messages): each `generate`,
 * `stream` and `embed` call is admitted with its own estimate (input, and `maxTokens` or the
 * default) for the key its context names, and settled from its usage — a failure releases the
 * reservation, a caller gone mid-call keeps it; an embedding is admitted and charged nothing.
 * `openStream` admits before it returns, so a refused stream is a status, not an `error` event.
 *
 * @example
 * const gated = gateRuntime(gate, runtime, { surface: "api", defaultMaxOutputTokens: 4096, digestOf: (context) => digestOfCaller(context?.user) });
 */
export function gateRuntime(gate: GovernanceGate, runtime: Runtime, options: GateRuntimeOptions): Runtime {
  const admit = async (request: WorkRequest, context: RuntimeCallContext | undefined): Promise<Admitted> => {
    const digest = options.digestOf(context);
    const estimatedInputTokens = estimateInputTokens(request);
    const model = typeof request.model === "string" ? request.model : undefined;
    // A caller without a key learns that first; a number the gate cannot count is a 400 naming it.
    const maxOutputTokens = digest ? outputCapOf(request, options.defaultMaxOutputTokens) : options.defaultMaxOutputTokens;
    // The allow-list checks the name the caller used; the price is the model the call will run on.
    const defaultModel = digest && model === undefined ? await options.defaultModel?.() : undefined;
    const decision = digest
      ? await gate.admitDigest(digest, {
          surface: options.surface,
          ...(model ? { model } : {}),
          ...(defaultModel ? { models: [defaultModel] } : {}),
          estimatedInputTokens,
          maxOutputTokens,
          ...(context?.signal ? { signal: context.signal } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        })
      : await gate.admit({ credential: undefined, surface: options.surface, estimatedInputTokens });
    if ("refused" in decision) {
      options.onRefused?.(decision);
      throw apiRefusalError(decision);
    }
    if (model) options.annotate?.({ model });
    return { decision, model };
  };
  const hitsOf = (context: RuntimeCallContext | undefined) => options.guardrailHits?.() ?? callGuardrailHitsOf(context);
  const settle = async (
    admission: GateAdmission,
    served: { model: string; provider?: string },
    usage: TokenUsage,
    started: number,
    failed: boolean,
    context: RuntimeCallContext | undefined,
  ) => {
    options.annotate?.({ model: served.model, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
    const guardrails = hitsOf(context);
    await admission.settle({
      ...(guardrails?.length ? { guardrails: [...guardrails] } : {}),
      model: served.model,
      ...(served.provider ? { target: `${served.provider}/${served.model}` } : {}),
      ...gateTokensOf(usage),
      status: failed ? 500 : 200,
      latencyMs: performance.now() - started,
    });
  };

  /** A stream's events passed through, settled once it ends however it ends. */
  async function* metered(admitted: Admitted, source: AsyncIterable<DataStreamEvent>, context: RuntimeCallContext | undefined) {
    const { decision, model } = admitted;
    const started = performance.now();
    let usage: TokenUsage | undefined;
    let failed = false;
    let blocked = false;
    try {
      for await (const event of source) {
        const record = event as DataStreamEvent & { usage?: TokenUsage; data?: { usage?: TokenUsage; code?: unknown } };
        if (record.type === "finish") usage = record.usage ?? record.data?.usage ?? usage;
        if (record.type === "error") failed = true;
        if (record.type === "error" && record.data?.code === GUARDRAIL_VIOLATION) blocked = true;
        yield event;
      }
    } catch (error) {
      failed = true;
      blocked = isGuardrailBlock(error);
      throw error;
    } finally {
      // A client that left makes the runtime end in an abort error: no failure of the call, whose reservation stands.
      if (context?.signal?.aborted) failed = false;
      if (blocked && !usage) await settleBlocked(decision, model, hitsOf(context), started).catch(() => undefined);
      else if (failed && !usage) await decision.release().catch(() => undefined);
      else if (!usage)
        // A client gone before the finish: the reservation stands, exactly as reserved.
        await decision
          .settleAtReservation?.({ ...(model ? { model } : {}), status: 200, latencyMs: performance.now() - started })
          .catch(() => undefined);
      else await settle(decision, { model: model ?? "unknown" }, usage, started, failed, context).catch(() => undefined);
    }
  }

  /** An embedding is admitted (key, limits, budget left) and charged nothing: it generates no output. */
  const admittedOnly =
    <R extends object, T>(call: (request: R, context?: RuntimeCallContext) => Promise<T>) =>
    async (request: R, context?: RuntimeCallContext): Promise<T> => {
      const { decision } = await admit(request, context);
      try {
        return await call(request, context);
      } finally {
        await decision.release().catch(() => undefined);
      }
    };

  const own: Partial<Runtime> = {
    generate: async (request, context) => {
      const { decision, model } = await admit(request, context);
      const started = performance.now();
      try {
        const result = await runtime.generate(request, context);
        await settle(decision, result, result.usage, started, false, context).catch(() => undefined);
        return result;
      } catch (error) {
        if (isGuardrailBlock(error)) await settleBlocked(decision, model, hitsOf(context), started).catch(() => undefined);
        else if (context?.signal?.aborted && decision.settleAtReservation) {
          // Gone before the answer: the call may have reached its provider, so the reservation stands.
          const named = model ? { model } : {};
          await decision.settleAtReservation({ ...named, status: 499, latencyMs: performance.now() - started }).catch(() => undefined);
        } else await decision.release().catch(() => undefined);
        throw error;
      }
    },
    // The runtime's own checks first (it throws a validation error at once); the admission at the first read.
    stream: (request, context) => {
      const source = runtime.stream(request, context);
      return (async function* gatedStream() {
        yield* metered(await admit(request, context), source, context);
      })();
    },
    openStream: async (request, context) => {
      const source = runtime.stream(request, context);
      const admitted = await admit(request, context);
      return releasedIfNeverRead(metered(admitted, source, context), () => admitted.decision.release());
    },
    embed: admittedOnly((request, context) => runtime.embed(request, context)),
    embedMany: admittedOnly((request, context) => runtime.embedMany(request, context)),
  };
  // Everything else is the runtime's own, called on it (its methods may use private fields).
  return new Proxy(runtime, {
    get(target, property) {
      if (Object.hasOwn(own, property)) return own[property as keyof Runtime];
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    has: (target, property) => Object.hasOwn(own, property) || Reflect.has(target, property),
  });
}

/**
 * `events` for a reader that may close them before reading (a client gone before the first
 * pull): a generator never started skips its `finally`, so such a close releases the admitted
 * call itself — the runtime was never called.
 */
function releasedIfNeverRead<T>(events: AsyncGenerator<T>, release: () => Promise<void>): AsyncIterable<T> {
  let started = false;
  const iterator: AsyncIterator<T> = {
    next: (...args) => {
      started = true;
      return events.next(...(args as []));
    },
    return: async (value?: unknown) => {
      if (started) return events.return(value as T);
      started = true;
      await release().catch(() => undefined);
      return { done: true, value: value as T };
    },
    throw: (error?: unknown) => events.throw(error),
  };
  return { [Symbol.asyncIterator]: () => iterator };
}
