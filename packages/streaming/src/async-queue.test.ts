import { describe, expect, it } from "vitest";
import { AsyncQueue } from "./async-queue.js";

describe("AsyncQueue", () => {
  it("resolves a push only once the consumer pulled it", async () => {
    const queue = new AsyncQueue<number>();
    let resolved = false;
    const pushed = queue.push(1).then(() => {
      resolved = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(resolved).toBe(false);
    expect(await queue.next()).toEqual({ value: 1, done: false });
    await pushed;
    expect(resolved).toBe(true);
  });

  it("keeps memory bounded with a slow consumer when the producer awaits", async () => {
    const queue = new AsyncQueue<Uint8Array>();
    let maxBuffered = 0;
    const producer = (async () => {
      for (let index = 0; index < 200; index++) {
        await queue.push(new Uint8Array(64 * 1024));
        maxBuffered = Math.max(maxBuffered, queue.size);
      }
      queue.close();
    })();
    let received = 0;
    for await (const _chunk of queue) {
      received++;
      maxBuffered = Math.max(maxBuffered, queue.size);
      if (received % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await producer;
    expect(received).toBe(200);
    expect(maxBuffered).toBeLessThanOrEqual(1);
  });

  it("delivers buffered items after close, then ends; pushes after close are dropped", async () => {
    const queue = new AsyncQueue<string>();
    void queue.push("a");
    queue.close();
    await queue.push("b");
    const items: string[] = [];
    for await (const item of queue) items.push(item);
    expect(items).toEqual(["a"]);
  });

  it("fails the consumer after the buffered items", async () => {
    const queue = new AsyncQueue<string>();
    void queue.push("a");
    queue.fail(new Error("boom"));
    expect(await queue.next()).toEqual({ value: "a", done: false });
    await expect(queue.next()).rejects.toThrow("boom");
  });

  it("a consumer stopping early releases pending writers and calls onCancel", async () => {
    let cancelled = 0;
    const queue = new AsyncQueue<number>({ onCancel: () => cancelled++ });
    const first = queue.push(1);
    const second = queue.push(2);
    await queue.next();
    await queue.return();
    await Promise.all([first, second]);
    expect(cancelled).toBe(1);
    expect(queue.isClosed).toBe(true);
    expect(await queue.next()).toEqual({ value: undefined, done: true });
  });
});
