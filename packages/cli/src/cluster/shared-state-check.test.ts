import { describe, expect, it } from "vitest";
import { perWorkerStateProblem } from "./shared-state-check.js";

describe("perWorkerStateProblem", () => {
  const redis = { REDIS_URL: "redis://127.0.0.1:6379" };

  it("accepts one worker anywhere and several on Redis", () => {
    expect(perWorkerStateProblem(1, {}, {})).toBeUndefined();
    expect(perWorkerStateProblem(2, redis, {})).toBeUndefined();
    expect(perWorkerStateProblem(2, redis, { proxy: { enabled: true, store: "redis" } })).toBeUndefined();
  });

  it("refuses several workers without Redis or with a store pinned to memory", () => {
    expect(perWorkerStateProblem(2, {}, {})).toMatch(/needs REDIS_URL/);
    expect(perWorkerStateProblem(2, redis, { auth: { sessions: { store: "memory" } } })).toMatch(/auth\.sessions\.store/);
    expect(perWorkerStateProblem(2, redis, { proxy: { enabled: true } })).toMatch(/proxy\.store/);
    expect(perWorkerStateProblem(2, redis, { proxy: { enabled: false } })).toBeUndefined();
  });
});
