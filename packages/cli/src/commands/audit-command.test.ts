import { randomBytes, randomUUID } from "node:crypto";
import { type AuditEvent, insertChained, ensureAuditTable } from "@conduit-ai/governance";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ThrowawayPostgres, startThrowawayPostgres } from "../../../../tools/test/throwaway-postgres.js";
import { type AssembledServer, assembleServer } from "../server-assembly.js";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { killLeftovers } from "../test-support/spawn-conduit.js";

// The audit log on a real PostgreSQL, end to end: `conduit serve` records every administrative
// act, sign-in, failed sign-in and sign-out exactly once with its actor and target; an outage
// under admin traffic loses nothing; `conduit audit verify` exits 1 naming the first edited,
// deleted or swapped row, and 0 on an untouched log (`conduit audit` run in-process: test-support/run-in-process.ts).

const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ADMIN_KEY = "cli-audit-admin-key-0123456789abcdefghijklmn";
const VIEWER_KEY = "cli-audit-viewer-key-0123456789abcdefghijklm";

const databases: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of databases.splice(0)) await drop();
  killLeftovers();
});

/** A fresh database (dropped at the end), by URL. */
async function freshDatabase(url = baseUrl): Promise<string> {
  const name = `conduit_cli_audit_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  databases.push(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  });
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

async function rows(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("SELECT * FROM conduit_audit_events ORDER BY seq")).rows as Array<Record<string, string>>;
  } finally {
    await client.end();
  }
}

describe("the audit log of conduit serve on PostgreSQL", () => {
  let assembled: AssembledServer | undefined;
  afterEach(async () => {
    if (assembled?.server.getLifecycleState() === "running") await assembled.server.stop();
    await assembled?.close();
    assembled = undefined;
  });

  async function serve(databaseUrl: string) {
    const file = {
      keys: { store: "memory" },
      admin: { keys: [ADMIN_KEY, { key: VIEWER_KEY, role: "viewer" }] },
      proxy: { enabled: true, accounts: [{ id: "claude-1", type: "api-key", apiKey: "sk-ant-audit" }] },
    };
    assembled = await assembleServer(
      { framework: "hono", server: { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false } }, file },
      { DATABASE_URL: databaseUrl, CONDUIT_AUDIT_SPILL_FILE: `/tmp/conduit-audit-${randomUUID()}.ndjson` },
    );
    await assembled.server.start();
    const origin = `http://127.0.0.1:${assembled.server.getStatus().port}`;
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: {
          origin,
          "user-agent": "audit-test/1",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: (await response.json()) as { data: Record<string, string> }, response };
    };
    return { call, asAdmin: { authorization: `Bearer ${ADMIN_KEY}` } };
  }

  it("every act, sign-in, failed sign-in and sign-out leaves exactly one row naming its actor and target", async () => {
    const url = await freshDatabase();
    const { call, asAdmin } = await serve(url);
    expect((await call("POST", "/console/api/session", { credential: "not-a-key-not-a-key-not-a-key-0000" })).status).toBe(401);
    const signedIn = await call("POST", "/console/api/session", { credential: ADMIN_KEY });
    const cookie = (signedIn.response.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect((await call("POST", "/admin/teams", { id: "alpha", name: "Alpha" }, asAdmin)).status).toBe(201);
    const key = (await call("POST", "/admin/keys", { name: "k1", team: "alpha" }, asAdmin)).json.data;
    expect((await call("PATCH", `/admin/keys/${key.id}`, { name: "k1-renamed" }, asAdmin)).status).toBe(200);
    expect((await call("POST", `/admin/keys/${key.id}/rotate`, {}, asAdmin)).status).toBe(200);
    expect((await call("DELETE", `/admin/keys/${key.id}`, undefined, asAdmin)).status).toBe(200);
    expect((await call("PATCH", "/admin/teams/alpha", { name: "A" }, asAdmin)).status).toBe(200);
    expect((await call("DELETE", "/admin/teams/alpha", undefined, asAdmin)).status).toBe(200);
    expect((await call("POST", "/console/api/accounts/claude-1/disable", undefined, { cookie })).status).toBe(200);
    expect((await call("POST", "/console/api/accounts/claude-1/enable", undefined, { cookie })).status).toBe(200);
    expect((await call("POST", "/console/api/admin/keys", { name: "via-console" }, { cookie })).status).toBe(201);
    expect((await call("POST", "/admin/keys", { name: "viewer-try" }, { authorization: `Bearer ${VIEWER_KEY}` })).status).toBe(403);
    expect((await call("DELETE", "/console/api/session", undefined, { cookie })).status).toBe(200);
    await assembled?.close();
    assembled = undefined;

    const stored = await rows(url);
    const adminId = stored.find((row) => row.action === "team.create")?.actor_id as string;
    expect(adminId).toMatch(/^ak_[0-9a-f]{12}$/);
    const viaConsole = stored.find((row) => row.after !== null && (row.after as unknown as { name?: string }).name === "via-console");
    expect(
      stored.map((row) => [
        row.action,
        row.actor_kind,
        row.actor_id === adminId ? "admin" : row.actor_id,
        row.role,
        row.target_type,
        row.target_id,
        row.outcome,
      ]),
    ).toEqual([
      ["console.signin", "user", "unknown", null, "console", "/console", "failure"],
      ["console.signin", "admin-key", "admin", "admin", "console", "/console", "success"],
      ["team.create", "admin-key", "admin", "admin", "team", "alpha", "success"],
      ["key.create", "admin-key", "admin", "admin", "key", key.id, "success"],
      ["key.update", "admin-key", "admin", "admin", "key", key.id, "success"],
      ["key.rotate", "admin-key", "admin", "admin", "key", key.id, "success"],
      ["key.revoke", "admin-key", "admin", "admin", "key", key.id, "success"],
      ["team.update", "admin-key", "admin", "admin", "team", "alpha", "success"],
      ["team.delete", "admin-key", "admin", "admin", "team", "alpha", "success"],
      ["account.disable", "admin-key", "admin", "admin", "account", "claude-1", "success"],
      ["account.enable", "admin-key", "admin", "admin", "account", "claude-1", "success"],
      ["key.create", "admin-key", "admin", "admin", "key", viaConsole?.target_id, "success"],
      ["key.create", "admin-key", expect.stringMatching(/^ak_/), "viewer", "key", "", "denied"],
      ["console.signout", "admin-key", "admin", "admin", "console", "/console", "success"],
    ]);
    // The request's client and browser, never a secret or a digest.
    expect(stored.every((row) => row.client_address === "127.0.0.1" && row.user_agent === "audit-test/1")).toBe(true);
    expect(JSON.stringify(stored)).not.toMatch(/sk-conduit-|cli-audit-admin-key|cli-audit-viewer-key/);
    const verified = await runConduitInProcess(["audit", "verify"], { DATABASE_URL: url });
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain("audit log intact: 14 row(s) verified");
  });

  it("a PostgreSQL outage under admin traffic loses nothing: the writes answer, and their rows land once it is back", async () => {
    let postgres: ThrowawayPostgres | undefined = await startThrowawayPostgres();
    try {
      const { call, asAdmin } = await serve(postgres.url);
      for (let index = 0; index < 5; index += 1)
        expect((await call("POST", "/admin/keys", { name: `before-${index}` }, asAdmin)).status).toBe(201);
      postgres.stop();
      for (let index = 0; index < 25; index += 1)
        expect((await call("POST", "/admin/keys", { name: `during-${index}` }, asAdmin)).status).toBe(201);
      postgres.start();
      await assembled?.close();
      assembled = undefined;
      const stored = await rows(postgres.url);
      expect(stored.map((row) => (row.after as unknown as { name: string }).name)).toEqual([
        ...Array.from({ length: 5 }, (_, index) => `before-${index}`),
        ...Array.from({ length: 25 }, (_, index) => `during-${index}`),
      ]);
      expect((await runConduitInProcess(["audit", "verify"], { DATABASE_URL: postgres.url })).code).toBe(0);
    } finally {
      postgres?.destroy();
      postgres = undefined;
    }
  });
});

describe("conduit audit verify", () => {
  function event(index: number): AuditEvent {
    return {
      id: `event-${index}`,
      time: new Date(Date.UTC(2026, 11, 1, 0, 0, index)).toISOString(),
      actor: { kind: "user", id: `user-${index % 2}`, hint: "ops@example.com" },
      role: "admin",
      action: "key.update",
      target: { type: "key", id: `key_${index}` },
      after: { name: `name ${index}` },
      outcome: "success",
    };
  }

  /** A fresh log of six chained rows. */
  async function log(): Promise<{ url: string; sql: (text: string) => Promise<void> }> {
    const url = await freshDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await ensureAuditTable(pool);
    await insertChained(
      pool,
      Array.from({ length: 6 }, (_, index) => event(index + 1)),
    );
    await pool.end();
    return {
      url,
      sql: async (text) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(text);
        await client.end();
      },
    };
  }

  it("an untouched log exits 0 with the rows checked and the last hash", async () => {
    const { url } = await log();
    const result = await runConduitInProcess(["audit", "verify"], { DATABASE_URL: url });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/audit log intact: 6 row\(s\) verified; last seq 6, hash [0-9a-f]{64}/);
    const from = await runConduitInProcess(["audit", "verify", "--from", "4"], { DATABASE_URL: url });
    expect(from.stdout).toContain("3 row(s) verified");
  });

  it("an edited row: exit 1 naming it", async () => {
    const { url, sql } = await log();
    await sql(`UPDATE conduit_audit_events SET after = '{"name": "forged"}' WHERE seq = 4`);
    const result = await runConduitInProcess(["audit", "verify"], { DATABASE_URL: url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("audit log broken at seq 4 (id event-4)");
    expect(result.stderr).toContain("edited");
    // From a later row on, the rows after it still hold.
    expect((await runConduitInProcess(["audit", "verify", "--from", "5"], { DATABASE_URL: url })).code).toBe(0);
  });

  it("a deleted row: exit 1 naming the row after it", async () => {
    const { url, sql } = await log();
    await sql("DELETE FROM conduit_audit_events WHERE seq = 3");
    const result = await runConduitInProcess(["audit", "verify"], { DATABASE_URL: url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("audit log broken at seq 4 (id event-4)");
  });

  it("two rows swapped: exit 1 naming the first of them", async () => {
    const { url, sql } = await log();
    await sql("UPDATE conduit_audit_events SET seq = -seq WHERE seq IN (2, 5)");
    await sql("UPDATE conduit_audit_events SET seq = CASE seq WHEN -2 THEN 5 ELSE 2 END WHERE seq IN (-2, -5)");
    const result = await runConduitInProcess(["audit", "verify"], { DATABASE_URL: url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("audit log broken at seq 2 (id event-5)");
  });

  it("without DATABASE_URL: exit 2 saying so", async () => {
    const result = await runConduitInProcess(["audit", "verify"], { DATABASE_URL: "" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("DATABASE_URL");
  });
});
