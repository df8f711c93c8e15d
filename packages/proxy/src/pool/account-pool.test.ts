import { isStoreUnavailable } from "@conduit-ai/server-core";
import { emptyUsage } from "@conduit-ai/server-core/pricing";
import { describe, expect, it } from "vitest";
import { MemoryPoolStore } from "./store/memory-store.js";
import { guardedStore } from "./store/store-outage.js";
import type { Lease, Selection } from "./account-pool.js";
import { createAccountPool } from "./create-pool.js";

const usage = { ...emptyUsage(), input: 10, output: 5 };

function leaseOf(selection: Selection): Lease {
  if (selection.kind !== "lease") throw new Error(`expected a lease, got ${selection.kind}`);
  return selection.lease;
}

describe("the pool over the in-memory store (answered in the same turn)", () => {
  it("is used unguarded; a subclass overriding its methods is guarded like any store", async () => {
    const memory = new MemoryPoolStore();
    expect(guardedStore(memory)).toBe(memory);
    class DownStore extends MemoryPoolStore {
      override async readUsage(): Promise<never> {
        throw new Error("down");
      }
    }
    const down = guardedStore(new DownStore());
    const failure = await down.readUsage().catch((error: unknown) => error);
    expect(isStoreUnavailable(failure)).toBe(true);
  });

  it("honours the in-flight cap, sticky sessions, cooldowns and usage as the async path does", async () => {
    const store = new MemoryPoolStore();
    const pool = createAccountPool(
      {
        accounts: [
          { id: "a", type: "api-key", apiKey: "sk-a", maxInFlight: 1 },
          { id: "b", type: "api-key", apiKey: "sk-b", maxInFlight: 1, priority: 1 },
        ],
      },
      { store },
    );
    const first = leaseOf(await pool.acquire({ vendor: "anthropic", sessionKey: "session-1" }));
    expect(first.account.id).toBe("a");
    const second = leaseOf(await pool.acquire({ vendor: "anthropic" }));
    expect(second.account.id).toBe("b");
    // Both at their cap: the next waits for a slot, and the session keeps to its account.
    const waiting = pool.acquire({ vendor: "anthropic", sessionKey: "session-1" });
    second.release();
    first.release();
    expect(leaseOf(await waiting).account.id).toBe("a");

    await pool.cooldown("a", Date.now() + 60_000, "rate limited");
    const moved = leaseOf(await pool.acquire({ vendor: "anthropic", sessionKey: "session-1" }));
    expect(moved.account.id).toBe("b");
    await pool.recordUsage("b", "claude-sonnet-4-5", usage);
    const rows = await pool.rows();
    expect(rows.find((row) => row.id === "a")?.status).toBe("cooling");
    expect(rows.find((row) => row.id === "b")?.usage.totals).toMatchObject({ requests: 1, inputTokens: 10, outputTokens: 5 });
  });
});

describe("disabling and enabling by id", () => {
  it("an unknown account is a 404 ACCOUNT_NOT_FOUND naming it, and nothing is written to the store", async () => {
    const store = new MemoryPoolStore();
    const pool = createAccountPool({ accounts: [{ id: "a", type: "api-key", apiKey: "sk-a" }] }, { store });
    for (const attempt of [() => pool.disable("ghost", "operator"), () => pool.enable("ghost")]) {
      const failure = (await attempt().catch((error: unknown) => error)) as { statusCode?: number; code?: string; message?: string };
      expect(failure).toMatchObject({ statusCode: 404, code: "ACCOUNT_NOT_FOUND" });
      expect(failure.message).toContain('"ghost"');
    }
    expect((await store.readStates(["ghost"])).ghost?.disabledReason).toBeUndefined();
    await pool.disable("a", "operator");
    expect((await pool.rows()).find((row) => row.id === "a")?.status).toBe("disabled");
    await pool.enable("a");
    expect((await pool.rows()).find((row) => row.id === "a")?.status).toBe("active");
  });
});
