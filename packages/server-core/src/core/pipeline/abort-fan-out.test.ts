import { describe, expect, it } from "vitest";
import { onSharedAbort } from "./abort-fan-out.js";

describe("onSharedAbort", () => {
  it("calls every subscriber still subscribed when the signal aborts, once", () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onSharedAbort(controller.signal, () => calls.push("a"));
    const unsubscribeB = onSharedAbort(controller.signal, () => calls.push("b"));
    onSharedAbort(controller.signal, () => calls.push("c"));
    unsubscribeB();
    controller.abort();
    controller.abort();
    expect(calls.sort()).toEqual(["a", "c"]);
  });

  it("keeps one listener on the signal whatever the number of subscribers", () => {
    const controller = new AbortController();
    let added = 0;
    const signal = controller.signal;
    const original = signal.addEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
      added++;
      original(...args);
    }) as AbortSignal["addEventListener"];
    const unsubscribers = Array.from({ length: 1000 }, () => onSharedAbort(signal, () => {}));
    for (const unsubscribe of unsubscribers) unsubscribe();
    expect(added).toBe(1);
  });
});
