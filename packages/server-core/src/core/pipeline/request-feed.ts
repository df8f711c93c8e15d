import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import { isAsyncIterable } from "./raw-response.js";
import { performance } from "./clock.js";
import { wrapError } from "../../errors/wrap-error.js";

/**
 * One finished request as the live feed shows it: who, what, how it went — never content
 * (no body, no prompt, no header value, no query string).
 */
export interface RequestFeedEvent {
  /** ISO time the request arrived. */
  time: string;
  requestId: string;
  method: string;
  /** The route template (`/admin/keys/:id`), or `unmatched`: never a raw path with ids or secrets in it. */
  route: string;
  status: number;
  latencyMs: number;
  /** Set by the surface that served it (`annotateRequestFeed`): the virtual key's id, never its secret. */
  key?: string;
  /** The virtual key's name as its admin gave it (never its secret). */
  keyName?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** Guardrail hits of the call as `name:action:direction:entity` (never the matched text). */
  guardrails?: string[];
}

/** What an AI surface or gatekeeper may add to the request's feed event. */
export type RequestFeedAnnotation = Pick<RequestFeedEvent, "key" | "keyName" | "model" | "inputTokens" | "outputTokens" | "guardrails">;

export interface RequestFeedOptions {
  /** Events kept for a new subscriber's first view (default 100). */
  recent?: number;
  /** Subscribers at once (default 32); `subscribe` throws beyond. */
  maxSubscribers?: number;
}

const ANNOTATION_KEY = "conduit.requestFeed";

/**
 * A bounded live feed of finished requests (the operator console's "Live requests"): a ring
 * of the last `recent` events and at most `maxSubscribers` listeners, each called
 * synchronously, so a slow reader buffers on its own side (see `RequestFeed.stream`), never here.
 *
 * @example
 * const feed = installRequestFeed(server);
 * const stop = feed.subscribe((event) => console.log(event.status, event.route));
 */
export class RequestFeed {
  private readonly ring: RequestFeedEvent[] = [];
  private readonly listeners = new Set<(event: RequestFeedEvent) => void>();
  private readonly recentLimit: number;
  private readonly maxSubscribers: number;

  constructor(options: RequestFeedOptions = {}) {
    this.recentLimit = options.recent ?? 100;
    this.maxSubscribers = options.maxSubscribers ?? 32;
  }

  publish(event: RequestFeedEvent): void {
    this.ring.push(event);
    if (this.ring.length > this.recentLimit) this.ring.shift();
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener never affects the request or the other listeners.
      }
    }
  }

  /** The last events, oldest first. */
  recent(): RequestFeedEvent[] {
    return [...this.ring];
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Returns the unsubscribe function; throws `RangeError` when `maxSubscribers` are listening. */
  subscribe(listener: (event: RequestFeedEvent) => void): () => void {
    if (this.listeners.size >= this.maxSubscribers) throw new RangeError("Too many request feed subscribers");
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The feed as an async iterable (for an SSE route): the recent events, then live ones. A reader
   * that falls `buffer` events behind loses the oldest (counted in `dropped` of the next event).
   * Ends when `signal` aborts.
   */
  async *stream(signal: AbortSignal, buffer = 256): AsyncGenerator<RequestFeedEvent & { dropped?: number }> {
    const queue: RequestFeedEvent[] = [...this.ring];
    let dropped = 0;
    let wake: (() => void) | undefined;
    const unsubscribe = this.subscribe((event) => {
      queue.push(event);
      if (queue.length > buffer) {
        queue.shift();
        dropped++;
      }
      wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener("abort", onAbort);
    try {
      while (!signal.aborted) {
        const event = queue.shift();
        if (event === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if (dropped > 0) {
          yield { ...event, dropped };
          dropped = 0;
        } else yield event;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener("abort", onAbort);
    }
  }
}

/**
 * Adds the surface's view of the request to its feed event (key id, model, tokens); the other
 * fields come from the pipeline. Call it from an AI surface or a gatekeeper; later calls merge.
 *
 * @example
 * annotateRequestFeed(ctx, { key: admission.identity.keyId, keyName: admission.identity.name, model: "claude-sonnet-4-5", inputTokens: 1200, outputTokens: 80 });
 */
export function annotateRequestFeed(ctx: Pick<ServerContext, "state">, annotation: RequestFeedAnnotation): void {
  const current = ctx.state[ANNOTATION_KEY] as RequestFeedAnnotation | undefined;
  ctx.state[ANNOTATION_KEY] = { ...current, ...annotation };
}

/** Yields the stream unchanged and reports once it ended, failed or the client left. */
async function* observeStream(body: AsyncIterable<Uint8Array | string>, onEnd: () => void): AsyncGenerator<Uint8Array | string> {
  try {
    yield* body;
  } finally {
    onEnd();
  }
}

/**
 * Publishes every finished request to `feed` (streams when their last chunk went). Runs right
 * after the metrics middleware, so 404s and refusals by other middleware are in the feed too.
 *
 * @example
 * server.registerMiddleware(createRequestFeedMiddleware(new RequestFeed()));
 */
export function createRequestFeedMiddleware(feed: RequestFeed): MiddlewareDefinition {
  const publish = (ctx: ServerContext, status: number) => {
    const annotation = ctx.state[ANNOTATION_KEY] as RequestFeedAnnotation | undefined;
    feed.publish({
      time: new Date(Date.now() - (performance.now() - ctx.startTime)).toISOString(),
      requestId: ctx.requestId,
      method: ctx.method,
      route: ctx.route?.fullPath ?? "unmatched",
      status,
      latencyMs: Math.round((performance.now() - ctx.startTime) * 10) / 10,
      ...annotation,
    });
  };
  return {
    name: "request-feed",
    order: -99,
    handler: async (ctx, next) => {
      try {
        await next();
      } catch (error) {
        publish(ctx, wrapError(error).statusCode);
        throw error;
      }
      const response = ctx.response;
      if (response.streaming && isAsyncIterable(response.body)) {
        let ended = false;
        response.body = observeStream(response.body as AsyncIterable<Uint8Array | string>, () => {
          if (ended) return;
          ended = true;
          publish(ctx, response.status);
        });
        return;
      }
      publish(ctx, response.status);
    },
  };
}

const installed = new WeakMap<object, RequestFeed>();

/**
 * The server's request feed, created and its middleware registered on first call.
 *
 * @example
 * const feed = installRequestFeed(server); // same feed on every later call
 */
export function installRequestFeed(
  server: { registerMiddleware(middleware: MiddlewareDefinition): void },
  options?: RequestFeedOptions,
): RequestFeed {
  let feed = installed.get(server);
  if (feed === undefined) {
    feed = new RequestFeed(options);
    server.registerMiddleware(createRequestFeedMiddleware(feed));
    installed.set(server, feed);
  }
  return feed;
}

/**
 * The server's request feed when one is installed (by the console), else undefined: for surfaces
 * outside the HTTP pipeline (`/ws` messages) that publish to it without installing one.
 *
 * @example
 * requestFeedOf(server)?.publish(event);
 */
export function requestFeedOf(server: object): RequestFeed | undefined {
  return installed.get(server);
}
