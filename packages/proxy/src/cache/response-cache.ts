import { createHash } from "node:crypto";
import { type RawResponse, rawResponse } from "@conduit-ai/server-core";
import type { AnswerStore, CachedAnswer } from "./cache-stores.js";

/** The request header that bypasses the cache, and the answer header that says what it did. */
export const CACHE_HEADER = "x-conduit-cache";

/** Answer headers a hit replays; the rest (rate limits, request ids, dates) belong to the call that made it. */
const REPLAYED_HEADERS = ["content-type", "cache-control", "x-accel-buffering", "x-conduit-model"];

export interface ResponseCacheOptions {
  store: AnswerStore;
  ttlMs: number;
  maxEntryBytes: number;
  /** Whether a call whose key and team made no choice (`cache`) is cached. */
  enabledByDefault: boolean;
  onWarning?: (message: string) => void;
}

/** What identifies one cacheable call: never shared across scopes (teams, or keys without one). */
export interface CacheKeyParts {
  surface: string;
  scope: string;
  model: string;
  /** The parsed request: messages, tools, parameters (`metadata` is left out: it names the caller, not the question). */
  body: Record<string, unknown>;
}

/** JSON with object keys sorted at every depth: the same request, however its keys were ordered. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

const asBuffer = (chunk: Uint8Array | string) =>
  typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

/**
 * The exact response cache of the proxy's surfaces: a 200 answer is stored as the bytes that went
 * out (a stream chunk by chunk, while it passes — never buffered before the client gets it) and
 * replayed as the same bytes. A store that fails is a miss, never an error: the call goes upstream.
 *
 * @example
 * const key = cache.keyOf({ surface: "anthropic-messages", scope: admitted.cacheScope, model, body });
 * const hit = await cache.lookup(key);
 * if (hit) return cache.replay(hit);
 * return cache.capture(key, response, (bytes) => ({ model, savedUsd }));
 */
export class ResponseCache {
  #warned = false;

  constructor(private readonly options: ResponseCacheOptions) {}

  /** Whether a call is cached: its key's or team's choice, else the server's default. */
  wanted(choice: boolean | undefined): boolean {
    return choice ?? this.options.enabledByDefault;
  }

  keyOf(parts: CacheKeyParts): string {
    const { metadata: _caller, ...question } = parts.body;
    return createHash("sha256")
      .update(canonicalJson({ surface: parts.surface, scope: parts.scope, model: parts.model, question }))
      .digest("base64url");
  }

  async lookup(key: string): Promise<CachedAnswer | undefined> {
    try {
      return await this.options.store.get(key);
    } catch (error) {
      this.#warn(error);
      return undefined;
    }
  }

  /** The stored answer as a route result, marked `hit`. */
  replay(answer: CachedAnswer): RawResponse {
    const chunks = answer.chunks.map((chunk) => Buffer.from(chunk, "base64"));
    const streamed = (answer.headers["content-type"] ?? "").startsWith("text/event-stream");
    const body = streamed ? replayChunks(chunks) : Buffer.concat(chunks);
    return rawResponse(body, { status: answer.status, headers: { ...answer.headers, [CACHE_HEADER]: "hit" } });
  }

  /**
   * The answer marked `miss`, its body stored once it has gone out whole: a 200 within
   * `maxEntryBytes`, read to its end (a stream the client cut is never stored).
   * `describe` reads the stored bytes for the model that served and what the answer cost.
   */
  capture(
    key: string,
    response: RawResponse,
    describe: (bytes: Buffer, contentType: string) => { model: string; savedUsd: number },
  ): RawResponse {
    const marked = rawResponse(response.body, { status: response.status, headers: { ...response.headers, [CACHE_HEADER]: "miss" } });
    // Only plain bodies: an encoded one would need its encoding replayed with it (upstream is asked for identity).
    const encoding = Object.entries(response.headers).find(([name]) => name.toLowerCase() === "content-encoding")?.[1];
    if (response.status !== 200 || (encoding !== undefined && encoding !== "identity")) return marked;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (REPLAYED_HEADERS.includes(name.toLowerCase()) && typeof value === "string") headers[name.toLowerCase()] = value;
    const save = (chunks: Buffer[]) => {
      const bytes = Buffer.concat(chunks);
      const answer: CachedAnswer = {
        status: 200,
        headers,
        chunks: chunks.map((chunk) => chunk.toString("base64")),
        ...describe(bytes, headers["content-type"] ?? ""),
      };
      this.options.store.set(key, answer, this.options.ttlMs).catch((error: unknown) => this.#warn(error));
    };
    const body = response.body;
    if (typeof body === "string" || body instanceof Uint8Array) {
      const bytes = asBuffer(body);
      if (bytes.byteLength <= this.options.maxEntryBytes) save([bytes]);
      return marked;
    }
    if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function") return marked;
    return rawResponse(this.#teed(body as AsyncIterable<Uint8Array | string>, save), { status: marked.status, headers: marked.headers });
  }

  /** The stream as it is, chunks copied aside while they fit; saved only when it ended. */
  #teed(source: AsyncIterable<Uint8Array | string>, save: (chunks: Buffer[]) => void): AsyncIterable<Uint8Array | string> {
    const limit = this.options.maxEntryBytes;
    return {
      [Symbol.asyncIterator]() {
        const iterator = source[Symbol.asyncIterator]();
        let kept: Buffer[] | undefined = [];
        let size = 0;
        return {
          async next() {
            const step = await iterator.next();
            if (step.done) {
              if (kept) save(kept);
              kept = undefined;
              return step;
            }
            if (kept) {
              const chunk = asBuffer(step.value);
              size += chunk.byteLength;
              if (size > limit) kept = undefined;
              else kept.push(Buffer.from(chunk));
            }
            return step;
          },
          async return() {
            kept = undefined;
            await iterator.return?.();
            return { done: true as const, value: undefined };
          },
        };
      },
    };
  }

  #warn(error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    this.options.onWarning?.(`proxy: the response cache's store failed (${(error as Error).message}); calls go upstream`);
  }
}

/** Stored chunks as a stream again, one per read. */
async function* replayChunks(chunks: Buffer[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}
