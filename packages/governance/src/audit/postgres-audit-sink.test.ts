import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ThrowawayPostgres, startThrowawayPostgres } from "../../../../tools/test/throwaway-postgres.js";
import type { AuditEvent } from "./audit-event.js";
import { PostgresAuditSink } from "./postgres-audit-sink.js";
import { verifyAuditLog } from "./verify-audit-log.js";

const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

function event(index: number, overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    id: randomUUID(),
    time: new Date(Date.UTC(2026, 11, 1, 12, 0, index)).toISOString(),
    actor: { kind: "admin-key", id: `ak_${String(index % 3).padStart(12, "0")}`, hint: "wxyz" },
    role: index % 2 === 0 ? "admin" : "team-admin:alpha",
    action: index % 2 === 0 ? "key.create" : "key.update",
    target: { type: "key", id: `key_${index}` },
    ...(index % 2 === 1 ? { team: "alpha" } : {}),
    after: { name: `key ${index}`, limits: { rpm: index + 1 }, budgets: [{ usd: 1.5, window: "day" }], metadata: { ünï: "✓ 🚀" } },
    requestId: `req_${index}`,
    clientAddress: "127.0.0.1",
    userAgent: "vitest",
    outcome: "success",
    ...overrides,
  };
}

/** A fresh database on `url`'s server; dropped at the end. */
async function freshDatabase(url: string) {
  const database = `conduit_audit_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const target = new URL(url);
  target.pathname = `/${database}`;
  return {
    url: target.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}

describe("PostgresAuditSink on a real PostgreSQL", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await freshDatabase(baseUrl);
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    pool.on("error", () => undefined);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it("writes off the request path, one chain in append order; a replayed id is stored once; the query filters", async () => {
    const sink = new PostgresAuditSink({ pool, flushIntervalMs: 60_000, spillFile: join(tmpdir(), `${randomUUID()}.ndjson`) });
    const events = Array.from({ length: 30 }, (_, index) => event(index));
    for (const item of events) sink.append(item);
    expect(sink.pending).toBe(30);
    await sink.flush();
    for (const item of events.slice(0, 5)) sink.append(item);
    await sink.flush();
    const rows = await pool.query("SELECT seq, id FROM conduit_audit_events ORDER BY seq");
    expect(rows.rows.map((row) => row.id)).toEqual(events.map((item) => item.id));
    expect(rows.rows.map((row) => Number(row.seq))).toEqual(events.map((_, index) => index + 1));
    expect(await verifyAuditLog(pool)).toMatchObject({ checked: 30, last: { seq: 30 } });
    const updates = await sink.query({ action: "key.update", team: "alpha", limit: 100 });
    expect(updates).toHaveLength(15);
    expect(updates[0]?.seq).toBe(30);
    expect(updates[0]?.after).toEqual(events[29]?.after);
    expect(await sink.query({ target: "key:key_3", limit: 10 })).toHaveLength(1);
    expect(await sink.query({ actor: "ak_000000000001", limit: 100 })).toHaveLength(10);
    await sink.close();
  });

  it("several processes appending at once still make one unbroken chain (the order is decided under an advisory lock)", async () => {
    const pools = Array.from({ length: 3 }, () => new pg.Pool({ connectionString: database.url, max: 2 }));
    const sinks = pools.map((own) => new PostgresAuditSink({ pool: own, flushIntervalMs: 60_000, batchSize: 7 }));
    const before = Number((await pool.query("SELECT count(*) AS n FROM conduit_audit_events")).rows[0].n);
    for (let round = 0; round < 5; round += 1) {
      sinks.forEach((sink, index) => {
        for (let item = 0; item < 10; item += 1) sink.append(event(round * 100 + index * 10 + item));
      });
      await Promise.all(sinks.map((sink) => sink.flush()));
    }
    for (const sink of sinks) await sink.close();
    for (const own of pools) await own.end();
    const after = Number((await pool.query("SELECT count(*) AS n FROM conduit_audit_events")).rows[0].n);
    expect(after - before).toBe(150);
    const verified = await verifyAuditLog(pool);
    expect(verified.broken).toBeUndefined();
    expect(verified.checked).toBe(after);
  });
});

describe("PostgresAuditSink through a PostgreSQL outage", () => {
  let server: ThrowawayPostgres;
  let folder: string;
  beforeAll(async () => {
    server = await startThrowawayPostgres();
    folder = mkdtempSync(join(tmpdir(), "conduit-audit-outage-"));
  });
  afterAll(() => {
    server?.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  it("loses nothing: events appended while PostgreSQL is down wait in memory and the spill file, then land in order, chained", async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 2, connectionTimeoutMillis: 1_000 });
    pool.on("error", () => undefined);
    const spillFile = join(folder, "audit-spill.ndjson");
    const sink = new PostgresAuditSink({ pool, flushIntervalMs: 60_000, maxBuffer: 20, spillFile });
    const events = Array.from({ length: 70 }, (_, index) => event(index));
    for (const item of events.slice(0, 10)) sink.append(item);
    await sink.flush();
    server.stop();
    for (const item of events.slice(10)) sink.append(item);
    await expect(sink.flush()).rejects.toThrow();
    expect((await sink.health()).status).toBe("down");
    // Past maxBuffer the oldest went to the spill file.
    expect(existsSync(spillFile)).toBe(true);
    server.start();
    for (let attempt = 0; attempt < 50; attempt += 1) {
      try {
        await sink.flush();
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const rows = await pool.query("SELECT id FROM conduit_audit_events ORDER BY seq");
    expect(rows.rows.map((row) => row.id)).toEqual(events.map((item) => item.id));
    expect(await verifyAuditLog(pool)).toMatchObject({ checked: 70 });
    await sink.close();
    await pool.end();
  });

  it("a shutdown while PostgreSQL is away keeps the rest in the spill file; the next process writes it first", async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 2, connectionTimeoutMillis: 1_000 });
    pool.on("error", () => undefined);
    const spillFile = join(folder, "audit-shutdown-spill.ndjson");
    const before = Number((await pool.query("SELECT count(*) AS n FROM conduit_audit_events")).rows[0].n);
    server.stop();
    const first = new PostgresAuditSink({ pool, flushIntervalMs: 60_000, spillFile });
    const events = Array.from({ length: 12 }, (_, index) => event(500 + index));
    for (const item of events) first.append(item);
    await first.close();
    expect(existsSync(spillFile)).toBe(true);
    server.start();
    const second = new PostgresAuditSink({ pool, flushIntervalMs: 60_000, spillFile });
    for (let attempt = 0; attempt < 50; attempt += 1) {
      try {
        await second.flush();
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const rows = await pool.query("SELECT id FROM conduit_audit_events WHERE seq > $1 ORDER BY seq", [before]);
    expect(rows.rows.map((row) => row.id)).toEqual(events.map((item) => item.id));
    expect((await verifyAuditLog(pool)).broken).toBeUndefined();
    await second.close();
    await pool.end();
  });
});
