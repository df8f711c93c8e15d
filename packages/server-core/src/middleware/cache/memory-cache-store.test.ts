import { describe, expect, it } from "vitest";
import type { CacheEntry } from "./cache-store.js";
import { MemoryCacheStore } from "./memory-cache-store.js";

const entryAt = (createdAt: number, ttlMs: number, data = "body"): CacheEntry => ({ data, status: 200, createdAt, ttlMs });

describe("MemoryCacheStore", () => {
  it("evicts the least recently read entry past maxSize", async () => {
    const store = new MemoryCacheStore(2, () => 0);
    await store.set("a", entryAt(0, 1000, "a"));
    await store.set("b", entryAt(0, 1000, "b"));
    await store.get("a");
    await store.set("c", entryAt(0, 1000, "c"));
    expect(await store.get("b")).toBeUndefined();
    expect((await store.get("a"))?.data).toBe("a");
    expect(store.size).toBe(2);
  });

  it("expires an entry at createdAt + ttlMs on its clock", async () => {
    let now = 5000;
    const store = new MemoryCacheStore(10, () => now);
    await store.set("a", entryAt(5000, 100));
    now = 5099;
    expect(await store.get("a")).toBeDefined();
    now = 5100;
    expect(await store.get("a")).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it("deletes and clears", async () => {
    const store = new MemoryCacheStore(10, () => 0);
    await store.set("a", entryAt(0, 1000));
    await store.set("b", entryAt(0, 1000));
    await store.delete("a");
    expect(await store.get("a")).toBeUndefined();
    await store.clear();
    expect(store.size).toBe(0);
  });
});
