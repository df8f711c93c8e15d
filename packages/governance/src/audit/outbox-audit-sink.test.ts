import { randomBytes, randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisOutbox } from "../outbox/redis-outbox.js";
import { AUDIT_STREAM, auditTagOf } from "../store/redis-keyspace.js";
import type { AuditEvent } from "./audit-event.js";
import { OutboxAuditSink } from "./outbox-audit-sink.js";
import { PostgresAuditSink } from "./postgres-audit-sink.js";
import { verifyAuditLog } from "./verify-audit-log.js";

// The audit log through a Redis outbox: an event is in Redis once `append` resolves (before the
// admin answer), any process's drain writes it into the one chain, and a Redis that cannot take
// it sends it to the process's own buffer instead of losing it or failing the act.
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = `conduit_audit_outbox_${randomBytes(5).toString("hex")}`;
const tag = auditTagOf(`test:audit-outbox:${randomBytes(6).toString("hex")}`);
const HOUR = 3_600_000;
let admin: pg.Client;
let pool: pg.Pool;
const connections: Redis[] = [];
const sinks: OutboxAuditSink[] = [];

function event(index: number, at: number): AuditEvent {
  return {
    id: randomUUID(),
    time: new Date(at).toISOString(),
    actor: { kind: "admin-key", id: "ak_000000000001", hint: "wxyz" },
    role: "admin",
    action: "key.create",
    target: { type: "key", id: `key_${index}` },
    requestId: `req_${index}`,
    outcome: "success",
  };
}

function sinkOn(redis: Redis, warnings: string[] = []): OutboxAuditSink {
  const table = new PostgresAuditSink({ pool, flushIntervalMs: HOUR, spillFile: `/tmp/${database}-${sinks.length}.ndjson` });
  const sink = new OutboxAuditSink({
    outbox: new RedisOutbox({ redis }),
    tag,
    table,
    intervalMs: HOUR,
    appendDeadlineMs: 300,
    onWarning: (message) => warnings.push(message),
  });
  sinks.push(sink);
  return sink;
}

beforeAll(async () => {
  admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on("error", () => undefined);
});

afterAll(async () => {
  for (const sink of sinks) await sink.close().catch(() => undefined);
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const { records, due } = RedisOutbox.keys(tag, AUDIT_STREAM);
  await redis.del(records, due);
  redis.disconnect();
  for (const each of connections) each.disconnect();
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
});

describe("OutboxAuditSink on a real Redis and PostgreSQL", () => {
  it("an appended event waits in Redis until a drain — any process's — writes it, in the order the acts happened; the chain verifies", async () => {
    const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
    connections.push(redis);
    const writer = sinkOn(redis);
    const base = Date.now();
    // Appended out of order (concurrent acts): the chain still reads in the acts' order.
    for (const index of [2, 0, 1, 3]) await writer.append(event(index, base + index * 10));
    const { records } = RedisOutbox.keys(tag, AUDIT_STREAM);
    expect(await redis.hlen(records)).toBe(4);
    expect(await pool.query("SELECT to_regclass('conduit_audit_events') AS name").then((result) => result.rows[0].name)).toBeNull();

    // Another process drains it (the lost-call sweeper hands the standing tag to its drain).
    const other = sinkOn(redis);
    expect(other.drain.standingTags).toEqual([tag]);
    expect(await other.drain.drainTags(other.drain.standingTags)).toBe(4);
    expect(await redis.hlen(records)).toBe(0);
    const rows = await other.query({ limit: 10 });
    expect(rows.map((row) => row.requestId).reverse()).toEqual(["req_0", "req_1", "req_2", "req_3"]);
    const verified = await verifyAuditLog(pool);
    expect(verified.checked).toBe(4);
    expect(verified.broken).toBeUndefined();
  });

  it("while Redis cannot take an event it goes to this process's buffer (with a warning) and is written by the next flush", async () => {
    // A Redis that never answers: nothing listens on the port, and commands are not retried.
    const away = new Redis({ port: 1, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    away.on("error", () => undefined);
    connections.push(away);
    const warnings: string[] = [];
    const sink = sinkOn(away, warnings);
    const lonely = event(7, Date.now());
    await sink.append(lonely);
    expect(sink.pending).toBe(1);
    expect(warnings.join("\n")).toMatch(/Redis cannot take audit events/);
    // Nothing of it is in an outbox to drain: the buffer goes straight to PostgreSQL.
    await sink.flush();
    const rows = await sink.query({ limit: 10, target: "key:key_7" });
    expect(rows.map((row) => row.id)).toEqual([lonely.id]);
    expect(sink.pending).toBe(0);
    expect((await verifyAuditLog(pool)).broken).toBeUndefined();
  });
});
