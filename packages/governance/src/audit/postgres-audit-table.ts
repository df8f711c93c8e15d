import type { Pool, PoolClient } from "pg";
import { chained } from "./audit-chain.js";
import type { AuditEvent, AuditQuery, StoredAuditEvent } from "./audit-event.js";

/** The audit log's table unless told otherwise. */
export const AUDIT_TABLE = "conduit_audit_events";

const COLUMNS = [
  "seq",
  "id",
  "time",
  "actor_kind",
  "actor_id",
  "actor_hint",
  "role",
  "action",
  "target_type",
  "target_id",
  "team",
  "before",
  "after",
  "request_id",
  "client_address",
  "user_agent",
  "outcome",
  "prev_hash",
  "hash",
] as const;

/** A table name that is safe to write into SQL text. */
export function checkedTable(table: string): string {
  if (!/^[a-z_][a-z0-9_]*$/i.test(table)) throw new Error(`governance: invalid audit table name ${table}`);
  return table;
}

/** Creates the table (and its indexes) when missing: `seq` is the chain's order, `id` an event's identity. */
export async function ensureAuditTable(pool: Pool | PoolClient, table = AUDIT_TABLE): Promise<void> {
  const name = checkedTable(table);
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${name} (
      seq bigint PRIMARY KEY, id text NOT NULL UNIQUE, time timestamptz NOT NULL,
      actor_kind text NOT NULL, actor_id text NOT NULL, actor_hint text, role text,
      action text NOT NULL, target_type text NOT NULL, target_id text NOT NULL, team text,
      before jsonb, after jsonb, request_id text, client_address text, user_agent text,
      outcome text NOT NULL, prev_hash text NOT NULL, hash text NOT NULL)`,
  );
  await pool.query(`CREATE INDEX IF NOT EXISTS ${name}_time ON ${name} (time)`);
}

function rowOf(event: StoredAuditEvent): unknown[] {
  const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));
  return [
    event.seq,
    event.id,
    event.time,
    event.actor.kind,
    event.actor.id,
    event.actor.hint ?? null,
    event.role ?? null,
    event.action,
    event.target.type,
    event.target.id,
    event.team ?? null,
    json(event.before),
    json(event.after),
    event.requestId ?? null,
    event.clientAddress ?? null,
    event.userAgent ?? null,
    event.outcome,
    event.prevHash,
    event.hash,
  ];
}

/** A stored row as the event it is (absent fields left out, as they were appended). */
export function eventOfRow(row: Record<string, unknown>): StoredAuditEvent {
  const optional = <T>(name: string, value: T | null | undefined) => (value === null || value === undefined ? {} : { [name]: value });
  return {
    seq: Number(row.seq),
    id: row.id as string,
    time: (row.time instanceof Date ? row.time : new Date(row.time as string)).toISOString(),
    actor: { kind: row.actor_kind as "admin-key" | "user", id: row.actor_id as string, ...optional("hint", row.actor_hint) },
    ...optional("role", row.role as string | null),
    action: row.action as string,
    target: { type: row.target_type as string, id: row.target_id as string },
    ...optional("team", row.team as string | null),
    ...optional("before", row.before),
    ...optional("after", row.after),
    ...optional("requestId", row.request_id as string | null),
    ...optional("clientAddress", row.client_address as string | null),
    ...optional("userAgent", row.user_agent as string | null),
    outcome: row.outcome as StoredAuditEvent["outcome"],
    prevHash: row.prev_hash as string,
    hash: row.hash as string,
  };
}

/**
 * Appends `events` to the chain in one transaction under a PostgreSQL advisory lock on the table:
 * however many processes write at once, each batch reads the last row and links to it with no
 * other writer in between, so the log has one order — the order of the commits. Ids already in the
 * table are skipped (a batch retried after a commit whose answer was lost is written once).
 *
 * This is the write half of the audit sink, and all a durable drainer needs: whatever delivers the
 * events (this process's buffer and spill file, or an outbox drained by any process), the chain is
 * made here, at the one place the order is decided.
 *
 * @example
 * await insertChained(pool, [event]);
 */
export async function insertChained(pool: Pool, events: AuditEvent[], table = AUDIT_TABLE): Promise<number> {
  if (events.length === 0) return 0;
  const name = checkedTable(table);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`conduit-audit:${name}`]);
    const known = await client.query(`SELECT id FROM ${name} WHERE id = ANY($1::text[])`, [events.map((event) => event.id)]);
    const skip = new Set(known.rows.map((row: { id: string }) => row.id));
    const last = await client.query(`SELECT seq, hash FROM ${name} ORDER BY seq DESC LIMIT 1`);
    let previous = last.rows[0] ? { seq: Number(last.rows[0].seq), hash: last.rows[0].hash as string } : undefined;
    const rows: StoredAuditEvent[] = [];
    for (const event of events) {
      if (skip.has(event.id)) continue;
      skip.add(event.id);
      const row = chained({ ...event, time: new Date(event.time).toISOString() }, previous);
      rows.push(row);
      previous = row;
    }
    for (let start = 0; start < rows.length; start += 200) {
      const slice = rows.slice(start, start + 200);
      const values: unknown[] = [];
      const tuples = slice.map((row, index) => {
        values.push(...rowOf(row));
        return `(${COLUMNS.map((_, column) => `$${index * COLUMNS.length + column + 1}`).join(", ")})`;
      });
      await client.query(`INSERT INTO ${name} (${COLUMNS.join(", ")}) VALUES ${tuples.join(", ")}`, values);
    }
    await client.query("COMMIT");
    return rows.length;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** `GET /admin/audit`: the newest matching events first. */
export async function queryAuditTable(pool: Pool, query: AuditQuery, table = AUDIT_TABLE): Promise<StoredAuditEvent[]> {
  const name = checkedTable(table);
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    where.push(condition(`$${values.length}`));
  };
  if (query.from) add((at) => `time >= ${at}`, query.from.toISOString());
  if (query.to) add((at) => `time <= ${at}`, query.to.toISOString());
  if (query.actor !== undefined) add((at) => `actor_id = ${at}`, query.actor);
  if (query.action !== undefined) add((at) => `action = ${at}`, query.action);
  if (query.target !== undefined) add((at) => `(target_id = ${at} OR target_type || ':' || target_id = ${at})`, query.target);
  if (query.team !== undefined) add((at) => `team = ${at}`, query.team);
  values.push(query.limit);
  const result = await pool.query(
    `SELECT * FROM ${name} ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT $${values.length}`,
    values,
  );
  return result.rows.map(eventOfRow);
}
