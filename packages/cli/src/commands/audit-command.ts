import { parseArgs } from "node:util";
import { UsageError } from "../usage-error.js";

export const AUDIT_USAGE = `Usage: conduit audit verify [--from SEQ|ISO-TIME]
Checks the audit log's hash chain in PostgreSQL (table conduit_audit_events): every row's hash
against its content and the row before it. Exit 0 when intact; exit 1 naming the first edited,
deleted or reordered row. Environment: DATABASE_URL (required).`;

/** The first row `--from` names: a seq number, or the first row at or after an ISO time. */
async function firstSeq(pool: import("pg").Pool, from: string | undefined): Promise<number | undefined> {
  if (from === undefined) return undefined;
  if (/^\d+$/.test(from)) return Number(from);
  const time = Date.parse(from);
  if (!Number.isFinite(time)) throw new UsageError(`--from expects a row's seq or an ISO time, got "${from}"\n${AUDIT_USAGE}`);
  const found = await pool.query("SELECT min(seq) AS seq FROM conduit_audit_events WHERE time >= $1", [new Date(time).toISOString()]);
  const seq = found.rows[0]?.seq;
  return seq === null || seq === undefined ? Number.MAX_SAFE_INTEGER : Number(seq);
}

/**
 * `conduit audit verify [--from]`: walks the audit log and names the first row that breaks its
 * chain (exit 1), or reports the rows checked and the last hash (exit 0; keep that hash
 * elsewhere — a chain cannot show rows cut from its end).
 */
export async function runAudit(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let parsed: { values: { from?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: { from: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${AUDIT_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length !== 1 || positionals[0] !== "verify") throw new UsageError(AUDIT_USAGE);
  if (!env.DATABASE_URL) throw new UsageError(`conduit audit verify needs DATABASE_URL\n${AUDIT_USAGE}`);
  const [{ verifyAuditLog }, { default: pg }] = await Promise.all([import("@conduit-ai/governance"), import("pg")]);
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 1, connectionTimeoutMillis: 5_000 });
  pool.on("error", () => undefined);
  try {
    const fromSeq = await firstSeq(pool, values.from);
    const result = await verifyAuditLog(pool, fromSeq === undefined ? {} : { fromSeq });
    if (result.broken) {
      const { seq, id, reason } = result.broken;
      console.error(`audit log broken at seq ${seq} (id ${id}): ${reason}; ${result.checked} row(s) before it verified`);
      process.exitCode = 1;
      return;
    }
    const tail = result.last ? `; last seq ${result.last.seq}, hash ${result.last.hash}` : "";
    console.log(`audit log intact: ${result.checked} row(s) verified${tail}`);
  } finally {
    await pool.end();
  }
}
