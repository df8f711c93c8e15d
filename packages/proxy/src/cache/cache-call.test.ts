import { describe, expect, it } from "vitest";
import { cacheApplies } from "./cache-call.js";
import { MemoryAnswerStore } from "./cache-stores.js";
import { ResponseCache } from "./response-cache.js";

const cacheOf = (enabledByDefault: boolean) =>
  new ResponseCache({ store: new MemoryAnswerStore(10), ttlMs: 60_000, maxEntryBytes: 64, enabledByDefault, onWarning: () => {} });
const request = (headers: Record<string, string> = {}) => ({ header: (name: string) => headers[name.toLowerCase()] });

// Surfaces ask this before they parse a body only the cache's key needs (`/v1/messages` parses nothing otherwise).
describe("cacheApplies", () => {
  it("applies when the server's default or the key's choice asks for it, unless the caller says off", () => {
    expect(cacheApplies(cacheOf(true), request() as never, undefined)).toBe(true);
    expect(cacheApplies(cacheOf(false), request() as never, { cacheScope: "k", cacheWanted: true, settle: () => {} })).toBe(true);
    expect(cacheApplies(cacheOf(true), request({ "x-conduit-cache": " OFF " }) as never, undefined)).toBe(false);
  });

  it("does not apply without a cache, when off by default, or when the key refuses it", () => {
    expect(cacheApplies(undefined, request() as never, undefined)).toBe(false);
    expect(cacheApplies(cacheOf(false), request() as never, undefined)).toBe(false);
    expect(cacheApplies(cacheOf(true), request() as never, { cacheScope: "k", cacheWanted: false, settle: () => {} })).toBe(false);
  });
});
