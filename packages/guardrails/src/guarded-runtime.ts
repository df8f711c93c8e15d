import type { DataStreamEvent, GenerateRequest, Runtime, RuntimeCallContext } from "@conduit-ai/server-core";
import { recordCallGuardrailHits } from "@conduit-ai/server-core/internal";
import type { GuardrailSet } from "./guardrail-set.js";
import { GuardrailViolation, violationMessage } from "./guardrail-violation.js";
import type { Guardrails } from "./guardrails.js";
import type { GuardrailHit } from "./match-rules.js";
import type { StreamScanner } from "./stream-scanner.js";
import type { GuardrailCallContext } from "./webhook.js";
import { workRequestSlots } from "./work-request-texts.js";

export interface GuardedRuntimeOptions {
  /** Check requests here (default true); false when a middleware checked them before the handler. */
  checkRequests?: boolean;
  /** The team's and key's guardrail lists of a call (default none: the config's `default`). */
  listsOf?: (context: RuntimeCallContext | undefined) => readonly (readonly string[] | undefined)[];
  /** Where a call's hits go besides the guardrails' own listeners (its request's feed and usage event). */
  onHits?: (hits: readonly GuardrailHit[], context: RuntimeCallContext | undefined) => void;
}

/** Who is calling, as a webhook is told: a virtual key's id and team, never a secret. */
function callerOf(context: RuntimeCallContext | undefined, model: string | undefined): GuardrailCallContext {
  const user = context?.user;
  const team = user?.metadata?.team;
  return {
    surface: "api",
    ...(user?.roles.includes("virtual-key") ? { key: user.id } : {}),
    ...(typeof team === "string" ? { team } : {}),
    ...(model ? { model } : {}),
  };
}

/** The event a guarded stream ends with when a guardrail blocks it: the server's `error` event with its code. */
function blockedEvent(hit: GuardrailHit): DataStreamEvent {
  return { type: "error", timestamp: Date.now(), data: { code: "guardrail_violation", message: violationMessage(hit) } };
}

/**
 * The runtime with guardrails on every call, for surfaces that call it themselves (`/api/agent/*`,
 * the `/api/ai/*` workflows): a request's texts (input, prompt, system, turns, embeddings input)
 * are checked before the call — a block throws `GuardrailViolation` (400 `guardrail_violation`),
 * a mask sends the masked copy; a whole answer's text is checked before it is returned, a stream's
 * `text-delta`s as they pass (held back by at most the window per text; a block ends the stream
 * with an `error` event, code `guardrail_violation`). Without a rule for the caller it is the
 * runtime itself, untouched.
 *
 * @example
 * const guarded = guardRuntime(guardrails, runtime, { listsOf: (context) => [context?.user?.metadata?.guardrails as string[]] });
 */
export function guardRuntime(guardrails: Guardrails, runtime: Runtime, options: GuardedRuntimeOptions = {}): Runtime {
  const setOf = (context: RuntimeCallContext | undefined) => guardrails.select(options.listsOf?.(context) ?? []);
  const record = (hits: readonly GuardrailHit[], context: RuntimeCallContext | undefined) => {
    if (hits.length === 0) return;
    guardrails.record(hits);
    // On the call itself too: a gate's runtime around this one settles its usage event with them.
    if (context) recordCallGuardrailHits(context, hits);
    options.onHits?.(hits, context);
  };
  /** The request as it may go on: itself, or a masked copy; a block throws. */
  async function checkedRequest<T extends object>(set: GuardrailSet, request: T, context: RuntimeCallContext | undefined): Promise<T> {
    if (options.checkRequests === false || !set.checks("request")) return request;
    const copy = structuredClone(request);
    const model = (request as { model?: unknown }).model;
    const outcome = await set.checkTexts(
      "request",
      workRequestSlots(copy),
      callerOf(context, typeof model === "string" ? model : undefined),
    );
    record(outcome.hits, context);
    if (outcome.block) throw new GuardrailViolation(outcome.block);
    return outcome.changed ? copy : request;
  }

  const guarded: Partial<Runtime> = Object.create(null, {
    generate: {
      value: async (request: GenerateRequest, context?: RuntimeCallContext) => {
        const set = setOf(context);
        if (!set) return runtime.generate(request, context);
        const result = await runtime.generate(await checkedRequest(set, request, context), context);
        if (!set.checks("response") || result.content === "") return result;
        let content = result.content;
        const slot = {
          text: content,
          replace: (text: string) => {
            content = text;
          },
        };
        const outcome = await set.checkTexts("response", [slot], callerOf(context, result.model));
        record(outcome.hits, context);
        if (outcome.block) throw new GuardrailViolation(outcome.block);
        return outcome.changed ? { ...result, content } : result;
      },
    },
    stream: {
      value: (request: GenerateRequest, context?: RuntimeCallContext): AsyncIterable<DataStreamEvent> =>
        (async function* guardedStream() {
          const set = setOf(context);
          if (!set) {
            yield* runtime.stream(request, context);
            return;
          }
          const sent = await checkedRequest(set, request, context);
          if (!set.checks("response")) {
            yield* runtime.stream(sent, context);
            return;
          }
          yield* guardedEvents(runtime.stream(sent, context), set, (hits) => record(hits, context), callerOf(context, request.model));
        })(),
    },
    embed: {
      value: async (request: Parameters<Runtime["embed"]>[0], context?: RuntimeCallContext) => {
        const set = setOf(context);
        return runtime.embed(set ? await checkedRequest(set, request, context) : request, context);
      },
    },
    embedMany: {
      value: async (request: Parameters<Runtime["embedMany"]>[0], context?: RuntimeCallContext) => {
        const set = setOf(context);
        return runtime.embedMany(set ? await checkedRequest(set, request, context) : request, context);
      },
    },
  });
  // Everything else is the runtime's own, called on the runtime itself (its methods use private
  // fields). The proxy's target is a blank object: a runtime whose methods are fixed properties (a
  // gated one) would not let a proxy over it answer with other functions.
  return new Proxy(Object.create(null) as Runtime, {
    get(_, property) {
      if (Object.hasOwn(guarded, property)) return guarded[property as keyof Runtime];
      const value = Reflect.get(runtime, property);
      return typeof value === "function" ? value.bind(runtime) : value;
    },
    has: (_, property) => Object.hasOwn(guarded, property) || property in runtime,
  });
}

/**
 * A runtime stream with the response rules on its `text-delta`s: one scanner per text id, what it
 * holds released before the text's end (or the stream's), a block ending it with an `error` event.
 * A response webhook is asked about the whole text before `finish`.
 */
async function* guardedEvents(
  events: AsyncIterable<DataStreamEvent>,
  set: GuardrailSet,
  record: (hits: readonly GuardrailHit[]) => void,
  caller: GuardrailCallContext,
): AsyncGenerator<DataStreamEvent> {
  const scanners = new Map<string, { scanner: StreamScanner | undefined; reported: number; last: DataStreamEvent }>();
  const answer: string[] | undefined = set.asksAboutAnswers ? [] : undefined;
  const report = (entry: { scanner: StreamScanner | undefined; reported: number }) => {
    const hits = entry.scanner?.hits ?? [];
    if (hits.length > entry.reported) record(hits.slice(entry.reported));
    entry.reported = hits.length;
  };
  /** The held text of one text id (or every one), as delta events; the hit when a rule blocks. */
  const flush = (id: string | undefined): { events: DataStreamEvent[]; block?: GuardrailHit } => {
    const flushed: DataStreamEvent[] = [];
    for (const [key, entry] of scanners) {
      if (id !== undefined && key !== id) continue;
      scanners.delete(key);
      const step = entry.scanner?.flush();
      report(entry);
      if (step?.block) return { events: flushed, block: step.block };
      if (step?.text) {
        answer?.push(step.text);
        flushed.push({ ...entry.last, data: { ...(entry.last.data as object), delta: step.text } });
      }
    }
    return { events: flushed };
  };
  for await (const event of events) {
    const delta = event.type === "text-delta" ? (event.data as { delta?: unknown } | undefined)?.delta : undefined;
    if (typeof delta === "string") {
      const id = event.id ?? "";
      let entry = scanners.get(id);
      if (!entry) {
        entry = { scanner: set.streamScanner(), reported: 0, last: event };
        scanners.set(id, entry);
      }
      entry.last = event;
      if (!entry.scanner) {
        answer?.push(delta);
        yield event;
        continue;
      }
      const step = entry.scanner.push(delta);
      report(entry);
      if (step.block) {
        yield blockedEvent(step.block);
        return;
      }
      if (step.text) {
        answer?.push(step.text);
        yield step.text === delta ? event : { ...event, data: { ...(event.data as object), delta: step.text } };
      }
      continue;
    }
    const ending =
      event.type === "text-end"
        ? (event.id ?? "")
        : event.type === "finish" || event.type === "error" || event.type === "tool-call"
          ? undefined
          : null;
    if (ending !== null) {
      const flushed = flush(ending);
      yield* flushed.events;
      if (flushed.block) {
        yield blockedEvent(flushed.block);
        return;
      }
    }
    if (event.type === "finish" && answer) {
      const outcome = await set.checkTexts("response", [{ text: answer.join(""), replace: () => {} }], caller);
      record(outcome.hits.filter((hit) => hit.kind === "webhook"));
      if (outcome.block) {
        yield blockedEvent(outcome.block);
        return;
      }
    }
    yield event;
  }
}
