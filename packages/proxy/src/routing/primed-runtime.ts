import { type DataStreamEvent, type Runtime, ServerAdapterError } from "@conduit-ai/server-core";

/** The first thing a runtime stream said: content (or its end), or a provider failure. */
interface StreamStart {
  started: boolean;
  failure?: ServerAdapterError;
}

const CONTENT = new Set(["text-delta", "tool-call", "finish"]);

/** A stream `error` event as the failure it reports: rate limited → 429, any other provider failure → 502. */
function failureOf(event: DataStreamEvent): ServerAdapterError {
  const data = (event.data ?? {}) as { code?: string; message?: string; retryAfter?: number };
  const statusCode = data.code === "PROVIDER_RATE_LIMITED" ? 429 : data.code === "PROVIDER_TIMEOUT" ? 504 : 502;
  return new ServerAdapterError(data.message ?? "The provider failed", {
    statusCode,
    code: data.code ?? "PROVIDER_ERROR",
    ...(data.retryAfter === undefined ? {} : { retryAfterMs: data.retryAfter * 1000 }),
  });
}

async function* watched(events: AsyncIterable<DataStreamEvent>, start: StreamStart): AsyncGenerator<DataStreamEvent> {
  try {
    for await (const event of events) {
      // Set before the event is passed on: whoever pulled the answer's bytes knows it by then.
      if (!start.started && event.type === "error") start.failure = failureOf(event);
      if (!start.started && (CONTENT.has(event.type) || event.type === "error")) start.started = true;
      yield event;
    }
  } finally {
    start.started = true;
  }
}

/**
 * A runtime stream answer held back until the provider said something: its first content, or a
 * failure — thrown (429/5xx status kept), so the routing table can try the next target before a
 * byte reached the client. `answer` builds the streamed body from the watched runtime; the
 * bytes pulled while waiting are sent first, in order.
 *
 * @example
 * const body = await primedStream(runtime, (watchedRuntime) => streamWithRuntime(watchedRuntime, request, context, meta));
 */
export async function primedStream<T>(runtime: Runtime, answer: (runtime: Runtime) => AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const start: StreamStart = { started: false };
  const watchedRuntime = new Proxy(runtime, {
    get(target, property) {
      if (property === "stream") return (...args: Parameters<Runtime["stream"]>) => watched(target.stream(...args), start);
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const iterator = answer(watchedRuntime)[Symbol.asyncIterator]();
  const pulled: T[] = [];
  let ended = false;
  while (!start.started) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    pulled.push(next.value);
  }
  if (start.failure) {
    await iterator.return?.();
    throw start.failure;
  }
  return (async function* () {
    try {
      yield* pulled;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  })();
}
