import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ThrowawayPostgres, startThrowawayPostgres } from "../../../../tools/test/throwaway-postgres.js";
import { dailyUsageOf } from "./memory-usage-sink.js";
import { PostgresUsageSink } from "./postgres-usage-sink.js";
import type { UsageEvent } from "./usage-event.js";

const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

function event(index: number, overrides: Partial<UsageEvent> = {}): UsageEvent {
  return {
    id: randomUUID(),
    time: new Date(Date.UTC(2026, 10, 20 + (index % 3), 12)).toISOString(),
    key: `key_${index % 4}`,
    ...(index % 2 === 0 ? { team: "red" } : {}),
    user: `user_${index % 5}`,
    model: index % 3 === 0 ? "claude-sonnet-4-5" : "gpt-5",
    inputTokens: 100 + index,
    outputTokens: 10 + (index % 50),
    cacheReadTokens: index % 7,
    cacheWriteTokens: 0,
    costUsd: (100 + index) * 3e-6 + (10 + (index % 50)) * 15e-6,
    status: 200,
    latencyMs: 12,
    ...overrides,
  };
}

const window = { from: new Date("2026-11-01T00:00:00Z"), to: new Date("2026-12-01T00:00:00Z") };

describe("PostgresUsageSink on a real PostgreSQL", () => {
  const database = `conduit_gov_${randomBytes(5).toString("hex")}`;
  let admin: pg.Client;
  let pool: pg.Pool;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(baseUrl);
    url.pathname = `/${database}`;
    pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
    pool.on("error", () => undefined);
  });

  afterAll(async () => {
    await pool?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  it("sums model calls per UTC day and target (what reconciliation reads) as the memory sink does", async () => {
    const sink = new PostgresUsageSink({
      pool,
      table: "daily_usage_events",
      flushIntervalMs: 60_000,
      spillFile: join(tmpdir(), `${database}-daily.ndjson`),
    });
    const events = Array.from({ length: 30 }, (_, index) =>
      event(index, {
        ...(index % 4 === 0 ? {} : { target: index % 4 === 1 ? "anthropic/claude-sonnet-4-5" : "runtime/openai/gpt-5" }),
        // A tool call through the MCP gateway is no vendor's model call.
        ...(index === 7 ? { kind: "tool" as const, server: "files", tool: "read" } : {}),
        ...(index === 8 ? { time: "2026-11-20T23:59:59.999Z" } : {}),
        ...(index === 9 ? { time: "2026-11-21T00:00:00.000Z" } : {}),
      }),
    );
    for (const item of events) sink.append(item);
    await sink.flush();
    const rows = await sink.dailyUsage(window);
    const expected = dailyUsageOf(events, window);
    expect(rows.map(({ costUsd, ...row }) => row)).toEqual(expected.map(({ costUsd, ...row }) => row));
    for (const [index, row] of rows.entries()) expect(row.costUsd).toBeCloseTo(expected[index]?.costUsd ?? -1, 12);
    expect(rows.some((row) => row.target === "anthropic/claude-sonnet-4-5")).toBe(true);
    expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(29);
    await sink.close();
  });

  it("keeps what a response-cache hit saved (saved_usd), and 0 for other calls", async () => {
    const sink = new PostgresUsageSink({
      pool,
      table: "saved_usage_events",
      flushIntervalMs: 60_000,
      spillFile: join(tmpdir(), `${database}-saved.ndjson`),
    });
    const hit = event(1, {
      costUsd: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      target: "cache/gpt-5",
      savedUsd: 0.000123456789,
    });
    const paid = event(2);
    sink.append(hit);
    sink.append(paid);
    await sink.flush();
    const { rows } = await pool.query<{ id: string; saved_usd: string | null; cost_usd: string }>(
      "SELECT id, saved_usd, cost_usd FROM saved_usage_events",
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(Number(byId.get(hit.id)?.saved_usd)).toBe(0.000123456789);
    expect(Number(byId.get(hit.id)?.cost_usd)).toBe(0);
    expect(Number(byId.get(paid.id)?.saved_usd)).toBe(0);
    await sink.close();
  });

  it("writes in batches off the request path; groups by key, team, user, model and day; an id written twice counts once", async () => {
    const sink = new PostgresUsageSink({ pool, flushIntervalMs: 60_000, spillFile: join(tmpdir(), `${database}.ndjson`) });
    const events = Array.from({ length: 60 }, (_, index) => event(index));
    for (const item of events) sink.append(item);
    // Nothing is written until a flush: append never waits on PostgreSQL.
    expect(sink.pending).toBe(60);
    await sink.flush();
    for (const item of events.slice(0, 10)) sink.append(item);
    await sink.flush();
    const byKey = await sink.query({ groupBy: "key", ...window });
    expect(byKey.map((row) => row.group)).toEqual(["key_0", "key_1", "key_2", "key_3"]);
    expect(byKey.reduce((sum, row) => sum + row.requests, 0)).toBe(60);
    const expectedCost = events.reduce((sum, item) => sum + item.costUsd, 0);
    expect(Math.abs(byKey.reduce((sum, row) => sum + row.costUsd, 0) - expectedCost)).toBeLessThan(1e-9);
    const byTeam = await sink.query({ groupBy: "team", ...window });
    expect(byTeam).toEqual([expect.objectContaining({ group: "", requests: 30 }), expect.objectContaining({ group: "red", requests: 30 })]);
    expect((await sink.query({ groupBy: "day", ...window })).map((row) => row.group)).toEqual(["2026-11-20", "2026-11-21", "2026-11-22"]);
    expect((await sink.query({ groupBy: "model", ...window })).find((row) => row.group === "gpt-5")?.requests).toBe(40);
    expect((await sink.query({ groupBy: "user", ...window })).length).toBe(5);
    const input = byKey.reduce((sum, row) => sum + row.inputTokens, 0);
    expect(input).toBe(events.reduce((sum, item) => sum + item.inputTokens, 0));
    expect(await sink.query({ groupBy: "key", from: new Date("2025-01-01"), to: new Date("2025-02-01") })).toEqual([]);
    await sink.close();
  });
});

describe("PostgresUsageSink through a PostgreSQL outage under load", () => {
  let server: ThrowawayPostgres;
  let pool: pg.Pool;
  let folder: string;

  beforeAll(async () => {
    server = await startThrowawayPostgres();
    pool = new pg.Pool({ connectionString: server.url, max: 2, connectionTimeoutMillis: 1_000 });
    pool.on("error", () => undefined);
    folder = mkdtempSync(join(tmpdir(), "conduit-spill-"));
  }, 60_000);

  afterAll(async () => {
    await pool?.end().catch(() => undefined);
    server?.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  it("buffers, spills past the bound to a file, and writes everything once on recovery — nothing lost, nothing twice", async () => {
    const spillFile = join(folder, "spill.ndjson");
    const warnings: string[] = [];
    const sink = new PostgresUsageSink({
      pool,
      maxBuffer: 200,
      batchSize: 100,
      flushIntervalMs: 50,
      spillFile,
      onWarning: (message) => warnings.push(message),
    });
    const written: UsageEvent[] = [];
    const produce = async (count: number) => {
      for (let index = 0; index < count; index++) {
        const item = event(written.length);
        written.push(item);
        sink.append(item);
        if (index % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await produce(500);
    server.stop();
    await produce(1500);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The bound holds during the outage: the overflow went to the spill file.
    expect(sink.pending).toBeLessThanOrEqual(200);
    expect(existsSync(spillFile) || existsSync(`${spillFile}.replaying`)).toBe(true);
    expect(warnings.some((message) => message.includes("unavailable"))).toBe(true);
    server.start();
    await produce(500);
    await expect
      .poll(
        async () => {
          await sink.flush().catch(() => undefined);
          const rows = await sink.query({ groupBy: "key", ...window }).catch(() => []);
          return rows.reduce((sum, row) => sum + row.requests, 0);
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(2500);
    // Delivered at least once, counted once: replaying some ids changes nothing.
    for (const item of written.slice(0, 300)) sink.append(item);
    await sink.flush();
    const rows = await sink.query({ groupBy: "day", ...window });
    expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(2500);
    const expectedCost = written.reduce((sum, item) => sum + item.costUsd, 0);
    expect(Math.abs(rows.reduce((sum, row) => sum + row.costUsd, 0) - expectedCost)).toBeLessThan(1e-9);
    expect(existsSync(spillFile)).toBe(false);
    await sink.close();
  }, 120_000);

  it("a shutdown while PostgreSQL is away keeps the buffered events in the spill file; the next process writes them", async () => {
    const spillFile = join(folder, "shutdown-spill.ndjson");
    const key = `shutdown_${randomBytes(3).toString("hex")}`;
    server.stop();
    const first = new PostgresUsageSink({ pool, flushIntervalMs: 60_000, spillFile });
    for (let index = 0; index < 12; index++) first.append(event(index, { key }));
    await first.close();
    expect(readFileSync(spillFile, "utf8").trim().split("\n")).toHaveLength(12);
    server.start();
    const second = new PostgresUsageSink({ pool, flushIntervalMs: 60_000, spillFile });
    await expect
      .poll(
        async () => {
          await second.flush().catch(() => undefined);
          const rows = await second.query({ groupBy: "key", ...window }).catch(() => []);
          return rows.find((row) => row.group === key)?.requests;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(12);
    expect(existsSync(spillFile)).toBe(false);
    await second.close();
  }, 60_000);
  it("records MCP tool calls as kind tool with their server and tool, adding the columns to a table made before them", async () => {
    const table = `usage_${randomBytes(4).toString("hex")}`;
    // The table as earlier versions made it: no kind, server or tool column.
    await pool.query(
      `CREATE TABLE ${table} (id text PRIMARY KEY, time timestamptz NOT NULL, key_id text NOT NULL, team text, user_id text,
        model text NOT NULL, target text, input_tokens bigint NOT NULL, output_tokens bigint NOT NULL,
        cache_read_tokens bigint NOT NULL, cache_write_tokens bigint NOT NULL, cost_usd numeric(24, 12) NOT NULL,
        status integer NOT NULL, latency_ms integer NOT NULL)`,
    );
    await pool.query(`INSERT INTO ${table} VALUES ('old-1', now(), 'key_0', null, null, 'gpt-5', null, 1, 1, 0, 0, 0, 200, 5)`);
    const sink = new PostgresUsageSink({ pool, table, flushIntervalMs: 60_000, spillFile: join(tmpdir(), `${table}.ndjson`) });
    const tool = event(1, {
      kind: "tool",
      server: "github",
      tool: "search",
      model: "github__search",
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    });
    sink.append(tool);
    sink.append(event(2));
    await sink.flush();
    const rows = await pool.query(`SELECT id, kind, server, tool FROM ${table} ORDER BY id`);
    const byId = Object.fromEntries(rows.rows.map((row: Record<string, string>) => [row.id, row]));
    expect(byId["old-1"]).toMatchObject({ kind: "model", server: null, tool: null });
    expect(byId[tool.id]).toMatchObject({ kind: "tool", server: "github", tool: "search" });
    expect(rows.rows.filter((row: Record<string, string>) => row.kind === "model")).toHaveLength(2);
    await sink.close();
  });

  it("stores each call's guardrail hits (name, action, direction, entity; no content), adding the column idempotently", async () => {
    const table = `usage_${randomBytes(4).toString("hex")}`;
    // A table from before the guardrails column, with a row of its own.
    await pool.query(
      `CREATE TABLE ${table} (id text PRIMARY KEY, time timestamptz NOT NULL, key_id text NOT NULL, team text, user_id text,
        model text NOT NULL, target text, input_tokens bigint NOT NULL, output_tokens bigint NOT NULL,
        cache_read_tokens bigint NOT NULL, cache_write_tokens bigint NOT NULL, cost_usd numeric(24, 12) NOT NULL,
        status integer NOT NULL, latency_ms integer NOT NULL)`,
    );
    await pool.query(`INSERT INTO ${table} VALUES ('old-1', now(), 'key_0', null, null, 'gpt-5', null, 1, 1, 0, 0, 0, 200, 5)`);
    const hits = [
      { guardrail: "pii", action: "mask" as const, direction: "request" as const, entity: "email" },
      { guardrail: "no-secrets", action: "block" as const, direction: "response" as const, entity: "aws-access-key" },
    ];
    // Two sinks on the same table migrate it one after the other: the second finds nothing to do.
    const sinks = [0, 1].map(
      (index) => new PostgresUsageSink({ pool, table, flushIntervalMs: 60_000, spillFile: join(tmpdir(), `${table}-${index}.ndjson`) }),
    );
    const guarded = event(1, { guardrails: hits.map((hit) => ({ ...hit, text: "ada@example.com" }) as never) });
    const plain = event(2);
    sinks[0]?.append(guarded);
    sinks[1]?.append(plain);
    await Promise.all(sinks.map((sink) => sink.flush()));
    const rows = await pool.query(`SELECT id, guardrails FROM ${table} ORDER BY id`);
    const byId = Object.fromEntries(rows.rows.map((row: { id: string; guardrails: unknown }) => [row.id, row.guardrails]));
    expect(byId[guarded.id]).toEqual(hits);
    expect(JSON.stringify(byId[guarded.id])).not.toContain("ada@");
    expect(byId[plain.id]).toBeNull();
    expect(byId["old-1"]).toBeNull();
    for (const sink of sinks) await sink.close();
  });
});
