import { loadOptionalDependency } from "@conduit-ai/server-core";
import type { Pool } from "pg";
import { type ChainBreak, verifyChain } from "./audit-chain.js";
import type { StoredAuditEvent } from "./audit-event.js";
import { AUDIT_TABLE, checkedTable, eventOfRow } from "./postgres-audit-table.js";

/** What `conduit audit verify` reports. */
export interface AuditVerification {
  /** Rows checked. */
  checked: number;
  /** The last row checked (record its hash elsewhere: a chain cannot show rows cut from its end). */
  last?: { seq: number; hash: string };
  /** The first row that breaks the chain. */
  broken?: ChainBreak;
}

const PAGE = 1_000;

/**
 * Walks the audit table in `seq` order, a page at a time, and checks every row's link and hash
 * (`verifyChain`). `fromSeq` starts at that row, trusting the row before it (its hash is where the
 * check picks up).
 *
 * @example
 * const { broken } = await verifyAuditLog(pool); // broken?.seq names the first bad row
 */
export async function verifyAuditLog(pool: Pool, options: { fromSeq?: number; table?: string } = {}): Promise<AuditVerification> {
  const name = checkedTable(options.table ?? AUDIT_TABLE);
  let previous: Pick<StoredAuditEvent, "seq" | "hash"> | undefined;
  let after = 0;
  if (options.fromSeq !== undefined && options.fromSeq > 1) {
    const before = await pool.query(`SELECT seq, hash FROM ${name} WHERE seq < $1 ORDER BY seq DESC LIMIT 1`, [options.fromSeq]);
    if (before.rows[0]) {
      previous = { seq: Number(before.rows[0].seq), hash: before.rows[0].hash as string };
      after = previous.seq;
    }
  }
  let checked = 0;
  let last: AuditVerification["last"];
  for (;;) {
    const page = await pool.query(`SELECT * FROM ${name} WHERE seq > $1 ORDER BY seq LIMIT ${PAGE}`, [after]);
    if (page.rows.length === 0) break;
    const rows = page.rows.map(eventOfRow);
    const result = verifyChain(rows, previous);
    checked += result.checked;
    if (result.broken) return { checked, ...(last ? { last } : {}), broken: result.broken };
    const tail = rows.at(-1) as StoredAuditEvent;
    previous = { seq: tail.seq, hash: tail.hash };
    last = previous;
    after = tail.seq;
  }
  return { checked, ...(last ? { last } : {}) };
}

/**
 * `verifyAuditLog` on the database at `databaseUrl` (its own short-lived connection). `from` is a
 * row's seq, or a time: the check starts at the first row at or after it.
 *
 * @example
 * const result = await verifyAuditDatabase(process.env.DATABASE_URL, { from: new Date("2026-12-01") });
 */
export async function verifyAuditDatabase(
  databaseUrl: string,
  options: { from?: number | Date; table?: string } = {},
): Promise<AuditVerification> {
  const pg = loadOptionalDependency<typeof import("pg")>("pg", { feature: "conduit audit verify", from: import.meta.url });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5_000 });
  pool.on("error", () => undefined);
  const table = checkedTable(options.table ?? AUDIT_TABLE);
  try {
    let fromSeq: number | undefined;
    if (typeof options.from === "number") fromSeq = options.from;
    else if (options.from instanceof Date) {
      const found = await pool.query(`SELECT min(seq) AS seq FROM ${table} WHERE time >= $1`, [options.from.toISOString()]);
      const seq = found.rows[0]?.seq;
      // Nothing at or after that time: nothing to check.
      if (seq === null || seq === undefined) return { checked: 0 };
      fromSeq = Number(seq);
    }
    return await verifyAuditLog(pool, { table, ...(fromSeq === undefined ? {} : { fromSeq }) });
  } finally {
    await pool.end();
  }
}
