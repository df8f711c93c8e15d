import { type DataStreamEvent, ServerAdapterError } from "@conduit-ai/server-core";
import type { MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";
import type { RuntimeStreamTranslator, RuntimeUsage } from "../../wire/runtime/to-messages-answer.js";

/** A stream `error` event as the failure it reports: rate limited → 429, a timeout → 504, any other provider failure → 502. */
function failureOf(event: DataStreamEvent): ServerAdapterError {
  const data = (event.data ?? {}) as { code?: string; message?: string; retryAfter?: number };
  const statusCode = data.code === "PROVIDER_RATE_LIMITED" ? 429 : data.code === "PROVIDER_TIMEOUT" ? 504 : 502;
  return new ServerAdapterError(data.message ?? "The provider failed", {
    statusCode,
    code: data.code ?? "PROVIDER_ERROR",
    ...(data.retryAfter === undefined ? {} : { retryAfterMs: data.retryAfter * 1000 }),
  });
}

/** Runtime events that say the provider answered (or failed): what a held-back stream waits for. */
const ANSWERING = new Set(["text-delta", "tool-call", "finish", "error"]);

/**
 * A runtime stream as batches of Messages events (one batch per runtime event that has a form in
 * the answer, `message_start` first). A plain iterator, not a generator: each batch costs the
 * runtime's own step and no more. `onEnd` runs once however the stream ended (finished, failed,
 * left by the client) with the tokens the provider reported, if it did.
 *
 * @example
 * const events = new RuntimeEvents(runtime.stream(request, context), new RuntimeStreamTranslator(meta), settle);
 * if (hasFallback) await events.prime();
 */
export class RuntimeEvents implements AsyncIterableIterator<MessagesStreamEvent[]> {
  private readonly source: AsyncIterator<DataStreamEvent>;
  private readonly pending: MessagesStreamEvent[][];
  /** The source is done (ended, threw, or its finish was read): nothing more is pulled from it. */
  private drained = false;
  private ended = false;

  constructor(
    source: AsyncIterable<DataStreamEvent>,
    private readonly translator: RuntimeStreamTranslator,
    private readonly onEnd: (usage: RuntimeUsage | undefined) => void,
  ) {
    this.source = source[Symbol.asyncIterator]();
    this.pending = [translator.start()];
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * Holds the stream back until the provider said something: its first content (or its end),
   * kept to be sent first — or a failure, thrown with its status (429/5xx) so the next target can
   * be tried before a byte reached the client. A stream that throws is not a failure here: it
   * ends with an `error` event, as it would unprimed.
   */
  async prime(): Promise<void> {
    while (!this.drained) {
      const next = await this.pull();
      if (next.event?.type === "error") {
        // No answer, so no usage to report: the next target's answer is the call's.
        this.ended = true;
        throw failureOf(next.event);
      }
      if (next.batch.length > 0) this.pending.push(next.batch);
      if (next.event === undefined || ANSWERING.has(next.event.type)) return;
    }
  }

  async next(): Promise<IteratorResult<MessagesStreamEvent[]>> {
    for (;;) {
      const queued = this.pending.shift();
      if (queued !== undefined) return { done: false, value: queued };
      if (this.drained) {
        this.end();
        return { done: true, value: undefined };
      }
      const { batch } = await this.pull();
      if (batch.length > 0) this.pending.push(batch);
    }
  }

  async return(): Promise<IteratorResult<MessagesStreamEvent[]>> {
    this.end();
    if (!this.drained) {
      this.drained = true;
      await this.source.return?.();
    }
    return { done: true, value: undefined };
  }

  /** One runtime event and its Messages events; no event when the source ended or threw. */
  private async pull(): Promise<{ batch: MessagesStreamEvent[]; event?: DataStreamEvent }> {
    let step: IteratorResult<DataStreamEvent>;
    try {
      step = await this.source.next();
    } catch (error) {
      this.drained = true;
      return { batch: this.translator.failed(error) };
    }
    if (step.done) {
      this.drained = true;
      return { batch: this.translator.ended() };
    }
    const batch = this.translator.translate(step.value);
    if (this.translator.finished) {
      // Its finish (or failure) read: the provider's stream is left, as a `for await` would leave it.
      this.drained = true;
      await this.source.return?.();
    }
    return { batch, event: step.value };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this.translator.usage);
  }
}
