import { describe, expect, it } from "vitest";
import { MemoryRateLimitStore } from "./memory-rate-limit-store.js";

describe("MemoryRateLimitStore", () => {
  it("fixed window: admits maxRequests per window, rejects without counting, resets at the boundary", async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore({ now: () => now });
    const check = { maxRequests: 3, windowMs: 1000, subWindows: 1 };
    const results = [];
    for (let index = 0; index < 5; index++) results.push(await store.hitWindow("a", check));
    expect(results.map((result) => result.allowed)).toEqual([true, true, true, false, false]);
    expect(results.map((result) => result.count)).toEqual([1, 2, 3, 3, 3]);
    expect(results[4]?.resetMs).toBe(1000);
    expect((await store.hitWindow("b", check)).allowed).toBe(true);
    now += 1000;
    expect(await store.hitWindow("a", check)).toMatchObject({ allowed: true, count: 1 });
  });

  it("sliding window: a request counts until windowMs after its sub-window", async () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ now: () => now });
    const check = { maxRequests: 2, windowMs: 1000, subWindows: 4 };
    expect((await store.hitWindow("k", check)).allowed).toBe(true); // slot 0
    now = 600;
    expect((await store.hitWindow("k", check)).allowed).toBe(true); // slot 2
    const refused = await store.hitWindow("k", check);
    expect(refused.allowed).toBe(false);
    expect(refused.resetMs).toBe(400); // slot 0 leaves the window at 1000
    now = 1000; // a fixed window would reopen here with both counts gone; slot 2 still counts
    expect(await store.hitWindow("k", check)).toMatchObject({ allowed: true, count: 2 });
    expect((await store.hitWindow("k", check)).allowed).toBe(false);
  });

  it("token bucket: refills continuously at capacity / windowMs", async () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ now: () => now });
    const check = { capacity: 4, windowMs: 1000 };
    for (let index = 0; index < 4; index++) expect((await store.takeToken("u", check)).allowed).toBe(true);
    const empty = await store.takeToken("u", check);
    expect(empty).toMatchObject({ allowed: false, retryAfterMs: 250 });
    now = 250; // one token back
    expect((await store.takeToken("u", check)).allowed).toBe(true);
    expect((await store.takeToken("u", check)).allowed).toBe(false);
    now = 10_000; // never above capacity
    expect((await store.takeToken("u", check)).tokens).toBe(3);
  });

  it("stays bounded: expired keys go first, then the least recently used", async () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ maxKeys: 100, now: () => now });
    const check = { maxRequests: 5, windowMs: 1000, subWindows: 1 };
    for (let index = 0; index < 100; index++) await store.hitWindow(`old-${index}`, check);
    now = 5000;
    await store.hitWindow("fresh", check);
    expect(store.size).toBe(1);
    for (let index = 0; index < 1000; index++) await store.hitWindow(`live-${index}`, check);
    expect(store.size).toBeLessThanOrEqual(100);
  });
});
