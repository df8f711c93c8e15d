import { randomBytes, randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresUsageSink } from "../usage/postgres-usage-sink.js";
import type { UsageEvent } from "../usage/usage-event.js";
import { OutboxDrain } from "./outbox-drain.js";
import { type OutboxEntry, RedisOutbox } from "./redis-outbox.js";

// The outbox between a settlement and the PostgreSQL history: a record leaves Redis only once
// its write committed; a drainer that dies (or hangs) mid-write leaves it to the next one.
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const namespace = `test:outbox:${randomBytes(6).toString("hex")}`;
const database = `conduit_outbox_${randomBytes(5).toString("hex")}`;
let admin: pg.Client;
let pool: pg.Pool;
let sink: PostgresUsageSink;
const connections: Redis[] = [];

function connect(): Redis {
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  connections.push(redis);
  return redis;
}

function event(key: string, costUsd: number): UsageEvent {
  return {
    id: randomUUID(),
    time: new Date().toISOString(),
    key,
    model: "claude-sonnet-4-5",
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd,
    status: 200,
    latencyMs: 3,
  };
}

const toEvents = (entries: OutboxEntry[]) => entries.map((entry) => JSON.parse(entry.json) as UsageEvent);

async function rowsOf(key: string): Promise<{ rows: number; ids: number; cost: number }> {
  const { rows } = await pool.query(
    "SELECT count(*)::int AS rows, count(DISTINCT id)::int AS ids, coalesce(sum(cost_usd), 0)::float8 AS cost FROM conduit_usage_events WHERE key_id = $1",
    [key],
  );
  return rows[0] as { rows: number; ids: number; cost: number };
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

describe("OutboxDrain on a real Redis and PostgreSQL", () => {
  it("a drainer that dies between its claim and its write leaves the records to the next after the visibility timeout: written once", async () => {
    const tag = `{${namespace}:k:a}`;
    const outbox = new RedisOutbox({ redis: connect() });
    const events = [event("k_a", 0.5), event("k_a", 0.25), event("k_a", 0.125)];
    for (const item of events) await outbox.append(tag, "usage", item.id, JSON.stringify(item));
    // The first drainer claims, then hangs in its write (a process frozen, then killed).
    let resumeStuck: () => void = () => undefined;
    const stuck = new OutboxDrain({
      outbox: new RedisOutbox({ redis: connect() }),
      stream: "usage",
      visibilityMs: 400,
      write: (entries) =>
        new Promise<void>((resolve) => {
          resumeStuck = () => void sink.write(toEvents(entries)).then(resolve);
        }),
    });
    const stuckDrain = stuck.drainTags([tag]);
    const next = new OutboxDrain({
      outbox: new RedisOutbox({ redis: connect() }),
      stream: "usage",
      visibilityMs: 400,
      write: (entries) => sink.write(toEvents(entries)),
    });
    await expect.poll(async () => (await outbox.visible([tag], "usage"))[0]).toBe(0);
    // Claimed: invisible to the next drainer until the timeout passes.
    expect(await next.drainTags([tag])).toBe(0);
    expect((await outbox.size([tag], "usage"))[0]).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await next.drainTags([tag])).toBe(3);
    expect(await rowsOf("k_a")).toEqual({ rows: 3, ids: 3, cost: 0.875 });
    expect((await outbox.size([tag], "usage"))[0]).toBe(0);
    // The first one wakes up and writes them again: counted once all the same.
    resumeStuck();
    expect(await stuckDrain).toBe(3);
    expect(await rowsOf("k_a")).toEqual({ rows: 3, ids: 3, cost: 0.875 });
  });

  it("a write that fails hands its claims back at once; they are written once when it works", async () => {
    const tag = `{${namespace}:k:b}`;
    const outbox = new RedisOutbox({ redis: connect() });
    const events = Array.from({ length: 7 }, (_, index) => event("k_b", (index + 1) / 8));
    for (const item of events) await outbox.append(tag, "usage", item.id, JSON.stringify(item));
    let refuse = true;
    const drain = new OutboxDrain({
      outbox,
      stream: "usage",
      batchSize: 3,
      write: async (entries) => {
        if (refuse) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
        await sink.write(toEvents(entries));
      },
    });
    await expect(drain.drainTags([tag])).rejects.toThrow(/ECONNREFUSED/);
    expect(drain.pending).toBe(3);
    expect((await outbox.visible([tag], "usage"))[0]).toBe(7);
    refuse = false;
    // Batches of three: a full claim is followed by another until the outbox is empty.
    expect(await drain.drainTags([tag])).toBe(7);
    expect(drain.pending).toBe(0);
    expect(await rowsOf("k_b")).toEqual({ rows: 7, ids: 7, cost: 3.5 });
  });

  it("each process drains the tags it put records in, by itself, and a record appended twice is kept once", async () => {
    const tag = `{${namespace}:k:c}`;
    const outbox = new RedisOutbox({ redis: connect() });
    const drain = new OutboxDrain({ outbox, stream: "usage", intervalMs: 50, write: (entries) => sink.write(toEvents(entries)) });
    const item = event("k_c", 1);
    expect(await outbox.append(tag, "usage", item.id, JSON.stringify(item))).toBe(true);
    expect(await outbox.append(tag, "usage", item.id, JSON.stringify({ ...item, costUsd: 2 }))).toBe(false);
    await expect.poll(() => rowsOf("k_c"), { timeout: 5_000 }).toEqual({ rows: 1, ids: 1, cost: 1 });
    expect((await outbox.size([tag], "usage"))[0]).toBe(0);
    await drain.close();
  });
});
