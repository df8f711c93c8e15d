import { rawResponse } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { type AnswerStore, type CachedAnswer, MemoryAnswerStore } from "./cache-stores.js";
import { ResponseCache } from "./response-cache.js";

const describeAnswer = () => ({ model: "m", savedUsd: 0.5 });
const cacheOf = (store: AnswerStore = new MemoryAnswerStore(10), warnings: string[] = []) =>
  new ResponseCache({ store, ttlMs: 60_000, maxEntryBytes: 64, enabledByDefault: true, onWarning: (message) => warnings.push(message) });
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

async function drain(body: unknown): Promise<string> {
  let text = "";
  for await (const chunk of body as AsyncIterable<Uint8Array | string>)
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
  return text;
}

async function* chunks(...parts: string[]): AsyncGenerator<string> {
  for (const part of parts) yield part;
}

describe("ResponseCache", () => {
  const body = { messages: [{ role: "user", content: "hi" }], max_tokens: 5, metadata: { user_id: "a" } };

  it("one key for the same question however its keys are ordered and whoever asks; another scope, model or question is another key", () => {
    const cache = cacheOf();
    const key = cache.keyOf({ surface: "s", scope: "team:a", model: "m", body });
    expect(
      cache.keyOf({ surface: "s", scope: "team:a", model: "m", body: { max_tokens: 5, messages: [{ content: "hi", role: "user" }] } }),
    ).toBe(key);
    expect(cache.keyOf({ surface: "s", scope: "team:a", model: "m", body: { ...body, metadata: { user_id: "b" } } })).toBe(key);
    expect(cache.keyOf({ surface: "s", scope: "team:b", model: "m", body })).not.toBe(key);
    expect(cache.keyOf({ surface: "s", scope: "team:a", model: "n", body })).not.toBe(key);
    expect(cache.keyOf({ surface: "t", scope: "team:a", model: "m", body })).not.toBe(key);
    expect(cache.keyOf({ surface: "s", scope: "team:a", model: "m", body: { ...body, max_tokens: 6 } })).not.toBe(key);
  });

  it("stores a stream once it went out whole, and replays the same chunks", async () => {
    const cache = cacheOf();
    const response = cache.capture(
      "k",
      rawResponse(chunks("a", "bc", "d"), { headers: { "content-type": "text/event-stream", "x-ratelimit": "1" } }),
      describeAnswer,
    );
    expect(response.headers["x-conduit-cache"]).toBe("miss");
    expect(await cache.lookup("k")).toBeUndefined();
    expect(await drain(response.body)).toBe("abcd");
    await settle();
    const stored = (await cache.lookup("k")) as CachedAnswer;
    expect(stored).toMatchObject({ status: 200, headers: { "content-type": "text/event-stream" }, model: "m", savedUsd: 0.5 });
    const replay = cache.replay(stored);
    expect(replay.headers).toEqual({ "content-type": "text/event-stream", "x-conduit-cache": "hit" });
    const replayed: string[] = [];
    for await (const chunk of replay.body as AsyncIterable<Uint8Array>) replayed.push(Buffer.from(chunk).toString());
    expect(replayed).toEqual(["a", "bc", "d"]);
  });

  it("never stores a cut stream, an answer over maxEntryBytes, an error or an encoded body", async () => {
    const cache = cacheOf();
    const cut = cache.capture("cut", rawResponse(chunks("a", "b")), describeAnswer);
    const iterator = (cut.body as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.return?.();
    const large = cache.capture("large", rawResponse(chunks("x".repeat(40), "y".repeat(40))), describeAnswer);
    expect(await drain(large.body)).toHaveLength(80);
    cache.capture("error", rawResponse("{}", { status: 429 }), describeAnswer);
    cache.capture("gzip", rawResponse("zz", { headers: { "Content-Encoding": "gzip" } }), describeAnswer);
    cache.capture("json", rawResponse('{"ok":true}', { headers: { "content-type": "application/json" } }), describeAnswer);
    await settle();
    for (const key of ["cut", "large", "error", "gzip"]) expect(await cache.lookup(key), key).toBeUndefined();
    expect(cache.replay((await cache.lookup("json")) as CachedAnswer).body).toEqual(Buffer.from('{"ok":true}'));
  });

  it("a store that fails is a miss (one warning), and storing into it never throws", async () => {
    const warnings: string[] = [];
    const broken: AnswerStore = {
      get: () => Promise.reject(new Error("Connection is closed")),
      set: () => Promise.reject(new Error("down")),
    };
    const cache = cacheOf(broken, warnings);
    expect(await cache.lookup("k")).toBeUndefined();
    expect(await cache.lookup("k")).toBeUndefined();
    const response = cache.capture("k", rawResponse("{}"), describeAnswer);
    expect(response.headers["x-conduit-cache"]).toBe("miss");
    await settle();
    expect(warnings).toEqual(["proxy: the response cache's store failed (Connection is closed); calls go upstream"]);
  });

  it("memory holds at most maxEntries, the least recently used first out", async () => {
    const store = new MemoryAnswerStore(2);
    const answer: CachedAnswer = { status: 200, headers: {}, chunks: [], model: "m", savedUsd: 0 };
    await store.set("a", answer, 60_000);
    await store.set("b", answer, 60_000);
    await store.set("c", answer, 60_000);
    expect(await store.get("a")).toBeUndefined();
    expect(await store.get("c")).toEqual(answer);
  });

  it("the key's or team's choice wins over the default", () => {
    const off = new ResponseCache({ store: new MemoryAnswerStore(1), ttlMs: 1, maxEntryBytes: 1, enabledByDefault: false });
    expect(off.wanted(undefined)).toBe(false);
    expect(off.wanted(true)).toBe(true);
    expect(cacheOf().wanted(false)).toBe(false);
  });
});
