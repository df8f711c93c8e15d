import { fileURLToPath } from "node:url";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { afterAll, beforeAll, expect, it } from "vitest";
import { killHard, lostProcessWorld } from "../fixtures/lost-process.js";
import { type RunningServer, forEachAdapter } from "../harness.js";

/**
 * A process is SIGKILLed with calls of a virtual key in its hands — admitted, some answered by
 * upstream, none settled; or settled, their usage events not yet written to PostgreSQL. Another
 * process (the server under test, on the same Redis and PostgreSQL) must make the money records
 * whole: once the calls' leases expire its sweep charges each unsettled call its reservation
 * exactly once, the history holds exactly one row per call (estimated ones marked), and the
 * events the dead process settled reach the history once. Read as an operator reads them:
 * `GET /admin/keys/{id}` and `GET /admin/usage`.
 */
const MODEL = "claude-sonnet-4-5";
const ADMIN_KEY = `lost-process-admin-${"0".repeat(24)}`;
const asAdmin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
const CHILD_SCRIPT = fileURLToPath(new URL("../fixtures/governance-child.ts", import.meta.url));

interface ChildReady {
  admitted: number;
  answered: number;
  costs: number[];
}

forEachAdapter("governance when a process is SIGKILLed mid-call", ({ start }) => {
  const world = lostProcessWorld("lost");
  let upstream: FakeAnthropic;

  beforeAll(async () => {
    upstream = await startFakeAnthropic();
    upstream.credentials.add("sk-ant-governance-child");
  });

  afterAll(() => upstream.close());

  /** The surviving process, pricing the model at $0.001 a token of every kind. */
  const serve = (): Promise<RunningServer> =>
    world.serveSurvivor(start, {
      admin: { keys: [ADMIN_KEY] },
      prices: { [MODEL]: { input: 1000, output: 1000, cacheRead: 1000, cacheWrite: 1000 } },
    });

  /** Starts `fixtures/governance-child.ts` with `count` calls of `scenario`; resolves once it is ready to be killed. */
  async function startChild(scenario: "unsettled" | "settled", count: number, credential: string) {
    const { process: child, ready } = await world.startChild(
      CHILD_SCRIPT,
      [scenario, String(count)],
      { CHILD_CREDENTIAL: credential, UPSTREAM_URL: upstream.url },
      /\{"ready":(\{.*\})\}/,
    );
    return { process: child, ready: JSON.parse(ready[1] as string) as ChildReady };
  }

  async function mint(server: RunningServer): Promise<{ id: string; key: string }> {
    const response = await fetch(server.url("/admin/keys"), {
      method: "POST",
      headers: asAdmin,
      body: JSON.stringify({ name: "lost", budgets: [{ usd: 10, window: "total" }] }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { data: { id: string; key: string } }).data;
  }

  async function spentUsd(server: RunningServer, id: string): Promise<number> {
    const response = await fetch(server.url(`/admin/keys/${id}`), { headers: asAdmin });
    const body = (await response.json()) as { data: { spend: Array<{ window: string; spentUsd: number }> } };
    return body.data.spend.find((row) => row.window === "total")?.spentUsd ?? 0;
  }

  async function historyOf(server: RunningServer, id: string) {
    const response = await fetch(server.url("/admin/usage?groupBy=key"), { headers: asAdmin });
    const rows = (
      (await response.json()) as { data: Array<{ group: string; requests: number; estimatedRequests: number; costUsd: number }> }
    ).data;
    const row = rows.find((each) => each.group === id);
    return row ? { requests: row.requests, estimatedRequests: row.estimatedRequests, costUsd: Number(row.costUsd.toFixed(9)) } : undefined;
  }

  const reservedPico = (id: string) => world.redis.hget(`{${world.namespace}:k:${id}}:ctr:key:${id}:total`, "res").then(Number);

  it("calls admitted (half of them answered by upstream) but never settled are charged their reservation once, after their lease, with one estimated row each", async () => {
    const server = await serve();
    const { id, key } = await mint(server);
    const { process: lost, ready } = await startChild("unsettled", 6, key);
    expect(ready).toMatchObject({ admitted: 6, answered: 3 });
    // Reserved: (20 + i) input + 16 output tokens at $0.001 each, for i = 0..5.
    const reservation = (6 * 36 + 15) * 0.001;
    expect(await reservedPico(id)).toBe(Math.round(reservation * 1e12));
    await killHard(lost);

    // The leases (300 ms + 300 ms) expire; the survivor's sweep settles each call at its reservation.
    await expect.poll(() => spentUsd(server, id), { timeout: 10_000, interval: 100 }).toBeCloseTo(reservation, 9);
    await expect
      .poll(() => historyOf(server, id), { timeout: 10_000, interval: 100 })
      .toEqual({ requests: 6, estimatedRequests: 6, costUsd: Number(reservation.toFixed(9)) });
    expect(await reservedPico(id)).toBe(0);
    // Once: more sweeps, also concurrent ones, change nothing.
    await Promise.all([
      world.survivor?.sweeper?.sweep(),
      world.survivor?.sweeper?.sweep(),
      new Promise((resolve) => setTimeout(resolve, 600)),
    ]);
    expect(await spentUsd(server, id)).toBeCloseTo(reservation, 9);
    expect(await historyOf(server, id)).toEqual({ requests: 6, estimatedRequests: 6, costUsd: Number(reservation.toFixed(9)) });
  }, 40_000);

  it("usage events of calls a process settled are written once by another process when it is killed before its own write", async () => {
    const server = await serve();
    const { id, key } = await mint(server);
    const { process: lost, ready } = await startChild("settled", 5, key);
    await killHard(lost);
    const cost = ready.costs.reduce((sum, each) => sum + each, 0);
    expect(ready.costs).toHaveLength(5);
    expect(await spentUsd(server, id)).toBeCloseTo(cost, 9);
    await expect
      .poll(() => historyOf(server, id), { timeout: 10_000, interval: 100 })
      .toEqual({ requests: 5, estimatedRequests: 0, costUsd: Number(cost.toFixed(9)) });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await historyOf(server, id)).toEqual({ requests: 5, estimatedRequests: 0, costUsd: Number(cost.toFixed(9)) });
    expect(await spentUsd(server, id)).toBeCloseTo(cost, 9);
    expect(await reservedPico(id)).toBe(0);
  }, 40_000);
});
