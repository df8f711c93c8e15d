import { secretDigest } from "@conduit-ai/server-core/internal";
import { afterEach, describe, expect, it, vi } from "vitest";
import { VerifiedTokenCache } from "./verified-token-cache.js";

/** A JWT's shape (the cache never parses it): header.payload.signature. */
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";

describe("VerifiedTokenCache (verified JWTs)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("keys by the JWT's SHA-256: no key is, or contains, the token", () => {
    const cache = new VerifiedTokenCache(60_000, 100);
    cache.set(JWT, { sub: "alice" });
    const keys = [...cache.keys()];
    expect(keys).toEqual([secretDigest(JWT)]);
    for (const key of keys) {
      expect(key).not.toContain(JWT);
      expect(key).not.toContain(JWT.split(".")[2]);
    }
    expect(cache.get(JWT, 5)).toEqual({ sub: "alice" });
  });

  it("serves claims for ttlMs and never past exp plus the tolerance", () => {
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000_000);
    const cache = new VerifiedTokenCache(60_000, 100);
    cache.set(JWT, { sub: "alice", exp: 1_010 });
    cache.set("other.jwt.text", { sub: "bob" });
    now.mockReturnValue(1_014_999);
    expect(cache.get(JWT, 5)).toEqual({ sub: "alice", exp: 1_010 });
    now.mockReturnValue(1_015_000);
    expect(cache.get(JWT, 5)).toBeUndefined();
    expect(cache.get("other.jwt.text", 5)).toEqual({ sub: "bob" });
    now.mockReturnValue(1_060_000);
    expect(cache.get("other.jwt.text", 5)).toBeUndefined();
  });

  it("keeps nothing with a ttl of 0, and at most maxEntries otherwise", () => {
    const off = new VerifiedTokenCache(0, 100);
    off.set(JWT, { sub: "alice" });
    expect(off.get(JWT, 5)).toBeUndefined();
    const small = new VerifiedTokenCache(60_000, 2);
    for (let index = 0; index < 5; index++) small.set(`${JWT}${index}`, { sub: String(index) });
    expect([...small.keys()]).toHaveLength(2);
    small.clear();
    expect([...small.keys()]).toHaveLength(0);
  });
});
