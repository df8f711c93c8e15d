import { describe, expect, it } from "vitest";
import { FakePromptCache } from "./prompt-cache.js";

const system = [{ type: "text", text: "You are a careful assistant. ".repeat(40), cache_control: { type: "ephemeral", ttl: "1h" } }];
const turn = (messages: unknown[]) => ({ model: "claude-sonnet-4-5", system, messages });
const user = (text: string, cached = true) => ({
  role: "user",
  content: [{ type: "text", text, ...(cached ? { cache_control: { type: "ephemeral" } } : {}) }],
});

describe("the fake's prompt cache", () => {
  it("writes each breakpoint's prefix at its TTL, then reads it from the next turn on even when the breakpoint moved", () => {
    let now = 0;
    const cache = new FakePromptCache(() => now);
    const first = cache.usageOf(turn([user("Read notes.txt. ".repeat(30))]));
    expect(first.cacheRead).toBe(0);
    expect(first.cacheWrite1h).toBeGreaterThan(0);
    expect(first.cacheWrite).toBeGreaterThan(0);
    expect(first.input).toBe(0);
    now += 60_000;
    // Turn 2: the first user message lost its breakpoint, the newest carries it.
    const second = cache.usageOf(
      turn([user("Read notes.txt. ".repeat(30), false), { role: "assistant", content: "Reading." }, user("It says: swordfish.")]),
    );
    expect(second.cacheRead).toBe(first.cacheWrite1h + first.cacheWrite);
    expect(second.cacheWrite1h).toBe(0);
    expect(second.cacheWrite).toBeGreaterThan(0);
    // Past the 5-minute TTL only the 1-hour system prefix is still there.
    now += 10 * 60_000;
    const later = cache.usageOf(turn([user("Something else entirely.")]));
    expect(later.cacheRead).toBe(first.cacheWrite1h);
  });

  it("counts a request without breakpoints as plain input", () => {
    const usage = new FakePromptCache().usageOf({ messages: [{ role: "user", content: "hi" }] });
    expect(usage).toMatchObject({ cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 });
    expect(usage.input).toBeGreaterThan(0);
  });
});
