import { silentLogger } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import { InMemoryConversationStore } from "./in-memory-store.js";
import { memoryOptionsOf } from "./memory-options.js";

/** An in-memory store whose history reads or writes can be made to fail, like Redis going away. */
function flakyStore() {
  const store = new InMemoryConversationStore();
  const state = { historyDown: false, appendDown: false };
  const history = store.history.bind(store);
  const append = store.append.bind(store);
  store.history = (sessionId, limit) => (state.historyDown ? Promise.reject(new Error("connect ECONNREFUSED")) : history(sessionId, limit));
  store.append = (sessionId, messages) =>
    state.appendDown ? Promise.reject(new Error("connect ECONNREFUSED")) : append(sessionId, messages);
  return { store, state };
}

describe("memory.onUnavailable", () => {
  it("degrade (default): answers without history and says memory: unavailable, for a failed read or a failed write", async () => {
    const { store, state } = flakyStore();
    const runtime = createRuntime({ env: {}, memory: { store }, logger: silentLogger });
    const call = () => runtime.generate({ input: { text: "hi" }, sessionId: "s" });
    expect((await call()).memory).toBeUndefined();
    state.historyDown = true;
    expect((await call()).memory).toBe("unavailable");
    state.historyDown = false;
    state.appendDown = true;
    expect((await call()).memory).toBe("unavailable");
    // No session, no memory involved.
    expect((await runtime.generate({ input: { text: "hi" } })).memory).toBeUndefined();
    await runtime.close();
  });

  it("fail: 503 STORE_UNAVAILABLE naming the memory store", async () => {
    const { store, state } = flakyStore();
    const runtime = createRuntime({ env: {}, memory: { store, onUnavailable: "fail" }, logger: silentLogger });
    state.historyDown = true;
    await expect(runtime.generate({ input: { text: "hi" }, sessionId: "s" })).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
      statusCode: 503,
      details: { store: "memory" },
    });
    state.historyDown = false;
    state.appendDown = true;
    await expect(runtime.generate({ input: { text: "hi" }, sessionId: "s" })).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
    await runtime.close();
  });

  it("streams say it in their last event: finish with memory: unavailable (degrade), an error STORE_UNAVAILABLE (fail)", async () => {
    const collect = async (runtime: ReturnType<typeof createRuntime>) => {
      const events = [];
      for await (const event of runtime.stream({ input: { text: "hi" }, sessionId: "s" })) events.push(event);
      return events.at(-1);
    };
    const { store, state } = flakyStore();
    const degrading = createRuntime({ env: {}, memory: { store }, logger: silentLogger });
    expect((await collect(degrading))?.data).not.toHaveProperty("memory");
    state.historyDown = true;
    expect(await collect(degrading)).toMatchObject({ type: "finish", data: { memory: "unavailable" } });
    state.historyDown = false;
    state.appendDown = true;
    expect(await collect(degrading)).toMatchObject({ type: "finish", data: { memory: "unavailable", reason: expect.any(String) } });
    await degrading.close();

    const failing = createRuntime({ env: {}, memory: { store, onUnavailable: "fail" }, logger: silentLogger });
    state.appendDown = false;
    state.historyDown = true;
    expect(await collect(failing)).toMatchObject({ type: "error", data: { code: "STORE_UNAVAILABLE" } });
    await failing.close();
  });

  it("reads the earlier store form and refuses an unknown policy", () => {
    const store = new InMemoryConversationStore();
    expect(memoryOptionsOf(store)).toEqual({ store, onUnavailable: "degrade" });
    expect(() => memoryOptionsOf({ onUnavailable: "retry" as never })).toThrow(/onUnavailable/);
  });
});
