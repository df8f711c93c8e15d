import { randomBytes } from "node:crypto";
import { DEFAULT_PRICES, type GateAdmission, type GateRefusal } from "@conduit-ai/server-core";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest, newKeySecret } from "../key-secret.js";
import { OutboxDrain } from "../outbox/outbox-drain.js";
import { RedisOutbox } from "../outbox/redis-outbox.js";
import type { KeyRecord } from "../records.js";
import { lostCallEvent, reservationOfCall } from "../store/open-call.js";
import { RedisOpenCalls } from "../store/redis-open-calls.js";
import { RedisGovernanceStore } from "../store/redis-store.js";
import { PostgresUsageSink } from "../usage/postgres-usage-sink.js";
import type { UsageEvent } from "../usage/usage-event.js";
import { windowClock } from "../windows.js";
import { GovernanceGate } from "./governance-gate.js";
import { LostCallSweeper } from "./lost-call-sweeper.js";

// Processes that die between admission and settlement: their calls' leases expire, and a sweep
// by any other process settles each at its reservation exactly once and writes its history row.
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const namespace = `test:sweep:${randomBytes(6).toString("hex")}`;
const database = `conduit_sweep_${randomBytes(5).toString("hex")}`;
const MODEL = "claude-sonnet-4-5";
let admin: pg.Client;
let pool: pg.Pool;
let sink: PostgresUsageSink;
const connections: Redis[] = [];

/** One process's governance on its own Redis connection: store with the usage outbox, drain, gate, sweeper. */
function processOn(options: { leaseMarginMs?: number } = {}) {
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  connections.push(redis);
  const outbox = new RedisOutbox({ redis });
  const store = new RedisGovernanceStore({ redis, namespace, outbox });
  const drain = new OutboxDrain({
    outbox,
    stream: "usage",
    write: (entries) => sink.write(entries.map((entry) => JSON.parse(entry.json) as UsageEvent)),
  });
  const gate = new GovernanceGate({ store, usage: sink, prices: DEFAULT_PRICES, leaseMarginMs: options.leaseMarginMs ?? 0 });
  const sweeper = new LostCallSweeper({ store, openCalls: new RedisOpenCalls({ redis, namespace }), usage: sink, drains: [drain] });
  return { redis, store, drain, gate, sweeper };
}

async function mint(store: RedisGovernanceStore, policy: Partial<KeyRecord>): Promise<{ credential: string; id: string }> {
  const credential = newKeySecret("sk-conduit-");
  const id = `k_${randomBytes(6).toString("hex")}`;
  const record: KeyRecord = { id, name: "test", hint: credential.slice(-4), createdAt: new Date().toISOString(), ...policy };
  await store.createKey(record, keyDigest(credential, undefined));
  return { credential, id };
}

const admitted = (decision: GateAdmission | GateRefusal): GateAdmission => {
  if ("refused" in decision) throw new Error(`refused: ${decision.reason}`);
  return decision;
};

async function historyOf(key: string) {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS rows, count(*) FILTER (WHERE estimated)::int AS estimated, count(*) FILTER (WHERE status = 499)::int AS lost,
       coalesce(sum(cost_usd), 0)::float8 AS cost FROM conduit_usage_events WHERE key_id = $1`,
    [key],
  );
  return rows[0] as { rows: number; estimated: number; lost: number; cost: number };
}

beforeAll(async () => {
  admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on("error", () => undefined);
  sink = new PostgresUsageSink({ pool, flushIntervalMs: 60_000, spillFile: `/tmp/${database}.ndjson` });
});

afterAll(async () => {
  await sink?.close();
  const keys = await connections[0]?.keys(`*${namespace}*`);
  if (keys && keys.length > 0) await connections[0]?.del(...keys);
  for (const redis of connections) redis.disconnect();
  await pool?.end();
  await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin?.end();
});

describe("LostCallSweeper on a real Redis and PostgreSQL", () => {
  it("calls a process never settled are charged their reservation once their lease expires — once across concurrent sweepers, one estimated row each; a late settlement changes nothing", async () => {
    const lost = processOn();
    const team = `t_${randomBytes(4).toString("hex")}`;
    await lost.store.createTeam({ id: team, name: "research", budgets: [{ usd: 50, window: "day" }], createdAt: new Date().toISOString() });
    const solo = await mint(lost.store, { budgets: [{ usd: 100, window: "total" }] });
    const member = await mint(lost.store, { team, user: "ada" });
    const decisions = await Promise.all([
      ...[1, 2, 3].map(async (index) =>
        admitted(
          await lost.gate.admit({
            credential: solo.credential,
            surface: "anthropic",
            model: MODEL,
            estimatedInputTokens: 100 * index,
            maxOutputTokens: 200,
            timeoutMs: 300,
          }),
        ),
      ),
      admitted(
        await lost.gate.admit({
          credential: member.credential,
          surface: "openai",
          model: MODEL,
          estimatedInputTokens: 50,
          maxOutputTokens: 100,
          timeoutMs: 300,
        }),
      ),
    ]);
    const reservedOf = async (counters: string) => Number(await lost.redis.hget(counters, "res"));
    const soloCounters = `{${namespace}:k:${solo.id}}:ctr:key:${solo.id}:total`;
    const teamCounters = `{${namespace}:t:${team}}:ctr:team:${windowClock(Date.now()).ids.day}`;
    const soloReserved = await reservedOf(soloCounters);
    const teamReserved = await reservedOf(teamCounters);
    // $3 + $15 per million: (100 i + 200 output) tokens for i = 1..3, and 50 + 100 for the member.
    expect(soloReserved).toBe((600 * 3 + 600 * 15) * 1e6);
    expect(teamReserved).toBe((50 * 3 + 100 * 15) * 1e6);
    // The process is lost: it renews nothing any more.
    lost.redis.disconnect();

    // The lease is still live: nothing to sweep.
    const sweepers = [processOn(), processOn(), processOn()];
    expect(await sweepers[0]?.sweeper.sweep()).toEqual({ swept: 0, written: 0 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Expired, never settled: three processes sweep at once, and each call is settled by one of them.
    const reports = await Promise.all(sweepers.map((each) => each.sweeper.sweep()));
    expect(reports.reduce((sum, report) => sum + report.swept, 0)).toBe(4);
    const reader = (sweepers[0] as ReturnType<typeof processOn>).store;
    const clock = windowClock(Date.now());
    expect((await reader.spendOf({ keyId: solo.id }, clock)).total).toBe(soloReserved);
    expect((await reader.spendOf({ team }, clock)).day).toBe(teamReserved);
    await lost.redis.connect();
    expect(await reservedOf(soloCounters)).toBe(0);
    expect(await reservedOf(teamCounters)).toBe(0);
    // The slots are free, the records gone.
    expect(await lost.redis.zcard(`{${namespace}:k:${solo.id}}:lease:key:${solo.id}`)).toBe(0);
    expect(await lost.redis.exists(`{${namespace}:k:${solo.id}}:calls`, `{${namespace}:t:${team}}:calls:due`)).toBe(0);
    await Promise.all(sweepers.map((each) => each.drain.flush()));
    expect(await historyOf(solo.id)).toEqual({ rows: 3, estimated: 3, lost: 3, cost: soloReserved / 1e12 });
    expect(await historyOf(member.id)).toEqual({ rows: 1, estimated: 1, lost: 1, cost: teamReserved / 1e12 });
    const { rows } = await pool.query(
      "SELECT user_id, team, model, input_tokens, output_tokens FROM conduit_usage_events WHERE key_id = $1",
      [member.id],
    );
    expect(rows).toEqual([{ user_id: "ada", team, model: MODEL, input_tokens: "50", output_tokens: "100" }]);

    // The process was only cut off, and settles late: its lease is gone, nothing counts twice.
    for (const decision of decisions) await decision.settle({ model: MODEL, inputTokens: 1, outputTokens: 1, status: 200, latencyMs: 5 });
    await lost.gate.flushSettlements();
    expect(lost.gate.pendingSettlements).toBe(0);
    await lost.drain.flush();
    expect((await lost.store.spendOf({ keyId: solo.id }, windowClock(Date.now()))).total).toBe(soloReserved);
    expect(await historyOf(solo.id)).toEqual({ rows: 3, estimated: 3, lost: 3, cost: soloReserved / 1e12 });
    expect(await sweepers[1]?.sweeper.sweep()).toEqual({ swept: 0, written: 0 });
  });

  it("a call still running is never swept: its lease is renewed, and it settles to its real usage", async () => {
    const live = processOn({ leaseMarginMs: 150 });
    const { credential, id } = await mint(live.store, { budgets: [{ usd: 10, window: "total" }] });
    // A 450 ms lease (300 + 150), renewed every 150 ms, for three times as long.
    const decision = admitted(
      await live.gate.admit({
        credential,
        surface: "anthropic",
        model: MODEL,
        estimatedInputTokens: 10,
        maxOutputTokens: 10,
        timeoutMs: 300,
      }),
    );
    const other = processOn();
    for (let round = 0; round < 6; round++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect((await other.sweeper.sweep()).swept).toBe(0);
    }
    await decision.settle({ model: MODEL, inputTokens: 7, outputTokens: 3, status: 200, latencyMs: 1_500 });
    // The event went to Redis with the settlement; any process's drain writes it.
    await other.drain.drainTags([`{${namespace}:k:${id}}`]);
    expect((await live.store.spendOf({ keyId: id }, windowClock(Date.now()))).total).toBe((7 * 3 + 3 * 15) * 1e6);
    expect(await historyOf(id)).toEqual({ rows: 1, estimated: 0, lost: 0, cost: (7 * 3 + 3 * 15) / 1e6 });
  });

  it("a lease renewed after the sweeper read it (its process is back) is left alone, and its own settlement applies", async () => {
    const back = processOn();
    const { credential, id } = await mint(back.store, {});
    const decision = admitted(
      await back.gate.admit({
        credential,
        surface: "anthropic",
        model: MODEL,
        estimatedInputTokens: 100,
        maxOutputTokens: 10,
        timeoutMs: 100,
      }),
    );
    await back.redis.quit();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sweeper = processOn();
    const openCalls = new RedisOpenCalls({ redis: sweeper.redis, namespace });
    const tag = `{${namespace}:k:${id}}`;
    const now = Date.now();
    const [due] = await openCalls.due(tag, now, 10);
    const call = due?.call;
    if (!due || !call) throw new Error("the call is not due");
    expect(call).toMatchObject({ keyId: id, model: MODEL, inputTokens: 100, outputTokens: 10 });
    // Between the sweeper's read and its settlement, the process reconnects and renews the lease.
    await back.redis.connect();
    const reservation = reservationOfCall(due.leaseId, call);
    await back.store.renewLease(reservation, Date.now() + 60_000);
    expect(await sweeper.store.settleLost(reservation, lostCallEvent(due.leaseId, call), now)).toBe(false);
    await decision.settle({ model: MODEL, inputTokens: 90, outputTokens: 8, status: 200, latencyMs: 300 });
    await back.drain.flush();
    expect((await back.store.spendOf({ keyId: id }, windowClock(Date.now()))).total).toBe((90 * 3 + 8 * 15) * 1e6);
    expect(await historyOf(id)).toEqual({ rows: 1, estimated: 0, lost: 0, cost: (90 * 3 + 8 * 15) / 1e6 });
  });

  it("a record stream of its own under a fixed tag (an audit log) is drained by the sweep when its writer died", async () => {
    const tag = `{${namespace}:audit}`;
    const written: string[] = [];
    const writerSide = new RedisOutbox({ redis: processOn().redis });
    await writerSide.append(tag, "audit", "change-1", JSON.stringify({ id: "change-1", what: "key created" }));
    await writerSide.append(tag, "audit", "change-2", JSON.stringify({ id: "change-2", what: "key revoked" }));
    // The writer dies before its drain runs; another process's sweep knows the stream and its tag.
    const other = processOn();
    const audit = new OutboxDrain({
      outbox: new RedisOutbox({ redis: other.redis }),
      stream: "audit",
      standingTags: [tag],
      write: async (entries) => {
        written.push(...entries.map((entry) => entry.id));
      },
    });
    const sweeper = new LostCallSweeper({
      store: other.store,
      openCalls: new RedisOpenCalls({ redis: other.redis, namespace }),
      usage: sink,
      drains: [other.drain, audit],
    });
    expect(await sweeper.sweep()).toEqual({ swept: 0, written: 2 });
    expect(written.sort()).toEqual(["change-1", "change-2"]);
    expect(await sweeper.sweep()).toEqual({ swept: 0, written: 0 });
  });

  it("a deleted key's tag is still visited: its calls are swept after it is gone", async () => {
    const lost = processOn();
    const { credential, id } = await mint(lost.store, {});
    admitted(
      await lost.gate.admit({
        credential,
        surface: "anthropic",
        model: MODEL,
        estimatedInputTokens: 1000,
        maxOutputTokens: 0,
        timeoutMs: 100,
      }),
    );
    expect(await lost.store.deleteKey(id)).toBe(true);
    lost.redis.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await processOn().sweeper.sweep()).swept).toBe(1);
    expect(await historyOf(id)).toEqual({ rows: 1, estimated: 1, lost: 1, cost: (1000 * 3) / 1e6 });
  });

  it("a call settled at its reservation (its client left before usage) is charged exactly what the sweep charges a lost call: the default output cap at the reserved price, its row estimated", async () => {
    const live = processOn();
    const lost = processOn();
    const settledKey = await mint(live.store, { budgets: [{ usd: 10, window: "total" }] });
    const sweptKey = await mint(lost.store, { budgets: [{ usd: 10, window: "total" }] });
    // No output cap: the gate reserves its default (4096) output tokens.
    const ask = (credential: string) => ({
      credential,
      surface: "anthropic" as const,
      model: MODEL,
      estimatedInputTokens: 120,
      timeoutMs: 100,
    });
    const decision = admitted(await live.gate.admit(ask(settledKey.credential)));
    admitted(await lost.gate.admit(ask(sweptKey.credential)));
    lost.redis.disconnect();
    await decision.settleAtReservation?.({ status: 200, latencyMs: 40 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await processOn().sweeper.sweep()).swept).toBe(1);
    const reserved = (120 * 3 + 4096 * 15) * 1e6;
    const clock = windowClock(Date.now());
    expect((await live.store.spendOf({ keyId: settledKey.id }, clock)).total).toBe(reserved);
    expect((await live.store.spendOf({ keyId: sweptKey.id }, clock)).total).toBe(reserved);
    expect(await live.redis.hget(`{${namespace}:k:${settledKey.id}}:ctr:key:${settledKey.id}:total`, "res")).toBe("0");
    // The event went to the outbox with the settlement; estimated like the swept call's, with the status the client got.
    await live.drain.flush();
    expect(await historyOf(settledKey.id)).toEqual({ rows: 1, estimated: 1, lost: 0, cost: reserved / 1e12 });
    expect(await historyOf(sweptKey.id)).toEqual({ rows: 1, estimated: 1, lost: 1, cost: reserved / 1e12 });
    const tokens = "SELECT model, input_tokens, output_tokens FROM conduit_usage_events WHERE key_id = $1";
    expect((await pool.query(tokens, [settledKey.id])).rows).toEqual((await pool.query(tokens, [sweptKey.id])).rows);
    expect((await pool.query(tokens, [settledKey.id])).rows).toEqual([{ model: MODEL, input_tokens: "120", output_tokens: "4096" }]);
  });
});
