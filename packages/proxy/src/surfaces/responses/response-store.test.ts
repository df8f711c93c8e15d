import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryResponseStore } from "./response-store.js";

const items = (text: string) => [{ role: "user" as const, content: text }];

describe("MemoryResponseStore", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps at most maxEntries, the least recently used out first", async () => {
    const store = new MemoryResponseStore(60_000, 2);
    await store.save("a", items("a"));
    await store.save("b", items("b"));
    expect(await store.load("a")).toEqual(items("a"));
    await store.save("c", items("c"));
    expect(await store.load("b")).toBeUndefined();
    expect(await store.load("a")).toEqual(items("a"));
    expect(await store.load("c")).toEqual(items("c"));
  });

  it("forgets a response after its TTL", async () => {
    vi.useFakeTimers();
    const store = new MemoryResponseStore(1_000, 10);
    await store.save("a", items("a"));
    vi.advanceTimersByTime(999);
    expect(await store.load("a")).toEqual(items("a"));
    vi.advanceTimersByTime(2);
    expect(await store.load("a")).toBeUndefined();
  });
});
