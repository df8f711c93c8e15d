import { secretDigest } from "@conduit-ai/server-core/internal";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ResultCache } from "./result-cache.js";

const TOKEN = "opaque-access-token-3f9a1c";

describe("ResultCache (introspection and userinfo results)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("keys by the token's SHA-256: no key is, or contains, the token", () => {
    const cache = new ResultCache<string>();
    cache.set(TOKEN, "alice", Date.now() + 60_000);
    const keys = [...cache.keys()];
    expect(keys).toEqual([secretDigest(TOKEN)]);
    for (const key of keys) expect(key).not.toContain(TOKEN);
    expect(cache.get(TOKEN)).toBe("alice");
  });

  it("serves a result until its own deadline, and forgets a deleted token", () => {
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000_000);
    const cache = new ResultCache<string>();
    cache.set(TOKEN, "alice", 1_005_000);
    cache.set("other", "bob", 1_000_000);
    expect(cache.get("other")).toBeUndefined();
    now.mockReturnValue(1_004_999);
    expect(cache.get(TOKEN)).toBe("alice");
    cache.delete(TOKEN);
    expect(cache.get(TOKEN)).toBeUndefined();
    cache.set(TOKEN, "alice", 1_005_000);
    now.mockReturnValue(1_005_000);
    expect(cache.get(TOKEN)).toBeUndefined();
  });

  it("holds at most maxEntries", () => {
    const cache = new ResultCache<number>(2);
    for (let index = 0; index < 5; index++) cache.set(`token-${index}`, index, Date.now() + 60_000);
    expect([...cache.keys()]).toHaveLength(2);
    expect(cache.get("token-4")).toBe(4);
    expect(cache.get("token-0")).toBeUndefined();
  });
});
