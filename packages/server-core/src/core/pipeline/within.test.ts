import { afterEach, describe, expect, it, vi } from "vitest";
import { within } from "./within.js";

describe("within", () => {
  afterEach(() => vi.useRealTimers());

  it("gives the work's result and leaves no timer behind", async () => {
    vi.useFakeTimers();
    expect(await within(Promise.resolve("done"), 1_000)).toBe("done");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives 'timeout' once the time is up, and passes a rejection through", async () => {
    vi.useFakeTimers();
    const waiting = within(new Promise(() => undefined), 1_000);
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void waiting.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting).toBe("timeout");
    expect(vi.getTimerCount()).toBe(0);
    await expect(within(Promise.reject(new Error("boom")), 1_000)).rejects.toThrow("boom");
  });
});
