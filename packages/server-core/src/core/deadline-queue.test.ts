import { describe, expect, it } from "vitest";
import { isoTimestamp } from "./clock.js";
import { DeadlineQueue } from "./deadline-queue.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("DeadlineQueue", () => {
  it("expires each entry at its own deadline, in order, and never a removed one", async () => {
    const queue = new DeadlineQueue(60);
    const expired: string[] = [];
    const started = performance.now();
    queue.add(started, () => expired.push("a"));
    const removed = queue.add(started, () => expired.push("removed"));
    await sleep(30);
    queue.add(performance.now(), () => expired.push("b"));
    queue.remove(removed);
    queue.remove(removed); // twice is harmless
    expect(queue.size).toBe(2);
    await sleep(45);
    expect(expired).toEqual(["a"]);
    await sleep(40);
    expect(expired).toEqual(["a", "b"]);
    expect(queue.size).toBe(0);
  });

  it("keeps working after the list emptied, and removes from the middle and the tail", async () => {
    const queue = new DeadlineQueue(20);
    const expired: number[] = [];
    const entries = [0, 1, 2, 3].map((index) => queue.add(performance.now(), () => expired.push(index)));
    queue.remove(entries[1]!);
    queue.remove(entries[3]!);
    await sleep(50);
    expect(expired).toEqual([0, 2]);
    queue.add(performance.now(), () => expired.push(9));
    await sleep(50);
    expect(expired).toEqual([0, 2, 9]);
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
