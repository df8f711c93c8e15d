import { describe, expect, it, vi } from "vitest";
import { isoTimestamp } from "./clock.js";
import { DeadlineQueue } from "./deadline-queue.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// No timing windows: a loaded machine may fire timers late, never early. The tests check
// order, that no entry expires before its deadline, and that removed entries never expire.
describe("DeadlineQueue", () => {
  it("expires each entry at its own deadline, in order, and never a removed one", async () => {
    const queue = new DeadlineQueue(60);
    const fired: Array<{ name: string; at: number; deadline: number }> = [];
    const track = (name: string) => {
      const entry = queue.add(performance.now(), () => fired.push({ name, at: performance.now(), deadline: entry.at }));
      return entry;
    };
    track("a");
    const removed = track("removed");
    await sleep(30);
    track("b");
    queue.remove(removed);
    queue.remove(removed); // twice is harmless
    expect(queue.size).toBe(2);
    await vi.waitFor(() => expect(fired.map((entry) => entry.name)).toEqual(["a", "b"]), { timeout: 5_000, interval: 10 });
    for (const entry of fired) expect(entry.at).toBeGreaterThanOrEqual(entry.deadline);
    // b was added one sleep later (a timer may fire a fraction of a millisecond early by performance.now()).
    expect(fired[1]!.deadline - fired[0]!.deadline).toBeGreaterThan(25);
    expect(queue.size).toBe(0);
  });

  it("keeps working after the list emptied, and removes from the middle and the tail", async () => {
    const queue = new DeadlineQueue(20);
    const expired: number[] = [];
    const entries = [0, 1, 2, 3].map((index) => queue.add(performance.now(), () => expired.push(index)));
    queue.remove(entries[1]!);
    queue.remove(entries[3]!);
    await vi.waitFor(() => expect(expired).toEqual([0, 2]), { timeout: 5_000, interval: 10 });
    expect(queue.size).toBe(0);
    queue.add(performance.now(), () => expired.push(9));
    await vi.waitFor(() => expect(expired).toEqual([0, 2, 9]), { timeout: 5_000, interval: 10 });
  });
});

describe("isoTimestamp", () => {
  it("is the current time in ISO 8601", () => {
    const before = Date.now();
    const stamp = isoTimestamp();
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(stamp)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(stamp)).toBeLessThanOrEqual(Date.now());
  });
});
