import { describe, expect, it } from "vitest";
import { BoundedCache } from "./bounded-cache.js";
import { secretDigest } from "../credentials/secret-digest.js";

/** A clock the test moves by hand. */
function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("BoundedCache", () => {
  it("evicts the least recently used entry, a read counting as a use", () => {
    const cache = new BoundedCache<number>({ maxEntries: 2 });
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(1);
    expect(cache.get("c")).toBe(3);
    expect([...cache.keys()]).toEqual(["a", "c"]);
  });

  it("never holds more than maxEntries, and setting a held key does not evict another", () => {
    const cache = new BoundedCache<number>({ maxEntries: 3 });
    for (let index = 0; index < 10; index++) cache.set(`k${index}`, index);
    expect(cache.size).toBe(3);
    expect([...cache.keys()]).toEqual(["k7", "k8", "k9"]);
    cache.set("k7", 70);
    expect(cache.size).toBe(3);
    expect([...cache.keys()]).toEqual(["k8", "k9", "k7"]);
    expect(cache.get("k7")).toBe(70);
  });

  it("keeps nothing with maxEntries 0", () => {
    const cache = new BoundedCache<number>({ maxEntries: 0 });
    cache.set("a", 1);
    expect(cache.size).toBe(0);
    expect(cache.get("a")).toBeUndefined();
  });

  it("expires an entry after the cache's ttlMs on the injected clock, and drops it when read", () => {
    const clock = fakeClock();
    const cache = new BoundedCache<string>({ maxEntries: 10, ttlMs: 1000, now: clock.now });
    cache.set("a", "x");
    clock.advance(999);
    expect(cache.get("a")).toBe("x");
    expect(cache.has("a")).toBe(true);
    clock.advance(1);
    expect(cache.has("a")).toBe(false);
    expect(cache.size).toBe(1);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("takes a per-entry ttlMs or absolute expiresAt over the default, and keeps entries forever without either", () => {
    const clock = fakeClock();
    const forever = new BoundedCache<string>({ maxEntries: 10, now: clock.now });
    forever.set("a", "x");
    forever.set("b", "y", { ttlMs: 50 });
    forever.set("c", "z", { expiresAt: clock.now() + 20, ttlMs: 5000 });
    clock.advance(30);
    expect(forever.get("c")).toBeUndefined();
    expect(forever.get("b")).toBe("y");
    clock.advance(10 ** 9);
    expect(forever.get("b")).toBeUndefined();
    expect(forever.get("a")).toBe("x");
  });

  it("does not store an entry whose deadline has passed, and removes the key's older value", () => {
    const clock = fakeClock();
    const cache = new BoundedCache<string>({ maxEntries: 10, ttlMs: 1000, now: clock.now });
    cache.set("a", "old");
    cache.set("a", "stale", { expiresAt: clock.now() });
    expect(cache.get("a")).toBeUndefined();
    cache.set("b", "never", { ttlMs: 0 });
    expect(cache.size).toBe(0);
  });

  it("reads the real clock at each call by default", () => {
    const cache = new BoundedCache<string>({ maxEntries: 1, ttlMs: 60_000 });
    cache.set("a", "x");
    expect(cache.get("a")).toBe("x");
  });

  it("deletes one key and clears all", () => {
    const cache = new BoundedCache<number>({ maxEntries: 10 });
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.delete("a")).toBe(true);
    expect(cache.delete("a")).toBe(false);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.get("b")).toBeUndefined();
  });
});

describe("secretDigest", () => {
  it("is the SHA-256 of the secret in base64url, never the secret itself", () => {
    expect(secretDigest("abc")).toBe("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    expect(secretDigest("sk-secret")).not.toContain("sk-secret");
    expect(secretDigest("sk-secret")).toHaveLength(43);
  });
});
