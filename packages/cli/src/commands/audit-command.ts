import { parseArgs } from "node:util";
import { UsageError } from "../usage-error.js";

export const AUDIT_USAGE = `Usage: conduit audit verify [--from SEQ|ISO-TIME]
Checks the audit log's hash chain in PostgreSQL (table conduit_audit_events): every row's hash
against its content and the row before it. Exit 0 when intact; exit 1 naming the first edited,
deleted or reordered row. Environment: DATABASE_URL (required).`;

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
  const from = values.from;
  let start: number | Date | undefined;
  if (from !== undefined) {
    start = /^\d+$/.test(from) ? Number(from) : new Date(from);
    if (start instanceof Date && Number.isNaN(start.getTime()))
      throw new UsageError(`--from expects a row's seq or an ISO time, got "${from}"\n${AUDIT_USAGE}`);
  }
  const { verifyAuditDatabase } = await import("@conduit-ai/governance");
  const result = await verifyAuditDatabase(env.DATABASE_URL, start === undefined ? {} : { from: start });
  if (result.broken) {
    const { seq, id, reason } = result.broken;
    console.error(`audit log broken at seq ${seq} (id ${id}): ${reason}; ${result.checked} row(s) before it verified`);
    process.exitCode = 1;
    return;
  }
  const tail = result.last ? `; last seq ${result.last.seq}, hash ${result.last.hash}` : "";
  console.log(`audit log intact: ${result.checked} row(s) verified${tail}`);
}
