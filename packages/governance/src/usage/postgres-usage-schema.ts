import type { Pool } from "pg";
import type { UsageEvent } from "./usage-event.js";

/**
 * The usage table's shape: its columns, how an event becomes a row, and the one idempotent
 * migration (create the table, its index, and any column added since, each only when missing).
 */
export const USAGE_COLUMNS = [
  "id",
  "time",
  "key_id",
  "team",
  "user_id",
  "model",
  "target",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "cost_usd",
  "status",
  "latency_ms",
  "kind",
  "server",
  "tool",
  "estimated",
  "cache_write_1h_tokens",
  "reasoning_tokens",
  "web_search_requests",
  "saved_usd",
  "guardrails",
] as const;

/** Columns added after the table's first release: created with it now, added to an older table on first use. */
export const ADDED_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ["kind", "text NOT NULL DEFAULT 'model'"],
  ["server", "text"],
  ["tool", "text"],
  ["estimated", "boolean NOT NULL DEFAULT false"],
  ["cache_write_1h_tokens", "bigint NOT NULL DEFAULT 0"],
  ["reasoning_tokens", "bigint NOT NULL DEFAULT 0"],
  ["web_search_requests", "bigint NOT NULL DEFAULT 0"],
  ["saved_usd", "numeric(24, 12) NOT NULL DEFAULT 0"],
  // The call's guardrail hits: name, action, direction and entity type of each, never content.
  ["guardrails", "jsonb"],
];

/** The hits as JSON for the `guardrails` column, each reduced to its four named fields; null when none. */
function guardrailsColumnOf(event: UsageEvent): string | null {
  const hits = event.guardrails;
  if (!hits || hits.length === 0) return null;
  return JSON.stringify(hits.map(({ guardrail, action, direction, entity }) => ({ guardrail, action, direction, entity })));
}

/** An event as the row of `USAGE_COLUMNS`. */
export function usageRowOf(event: UsageEvent): unknown[] {
  return [
    event.id,
    event.time,
    event.key,
    event.team ?? null,
    event.user ?? null,
    event.model,
    event.target ?? null,
    event.inputTokens,
    event.outputTokens,
    event.cacheReadTokens,
    event.cacheWriteTokens,
    event.costUsd.toFixed(12),
    event.status,
    Math.round(event.latencyMs),
    event.kind ?? "model",
    event.server ?? null,
    event.tool ?? null,
    event.estimated === true,
    event.cacheWrite1hTokens ?? 0,
    event.reasoningTokens ?? 0,
    event.webSearchRequests ?? 0,
    (event.savedUsd ?? 0).toFixed(12),
    guardrailsColumnOf(event),
  ];
}

/**
 * Creates the table and its time index when missing, then adds any column of `ADDED_COLUMNS` an
 * older table lacks (looked up first: ALTER TABLE locks the table even when there is nothing to do).
 * Safe to run again and from several processes at once.
 */
export async function migrateUsageTable(pool: Pool, table: string): Promise<void> {
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${table} (
      id text PRIMARY KEY, time timestamptz NOT NULL, key_id text NOT NULL, team text, user_id text,
      model text NOT NULL, target text, input_tokens bigint NOT NULL, output_tokens bigint NOT NULL,
      cache_read_tokens bigint NOT NULL, cache_write_tokens bigint NOT NULL, cost_usd numeric(24, 12) NOT NULL,
      status integer NOT NULL, latency_ms integer NOT NULL, ${ADDED_COLUMNS.map(([name, type]) => `${name} ${type}`).join(", ")})`,
  );
  await pool.query(`CREATE INDEX IF NOT EXISTS ${table}_time ON ${table} (time)`);
  const { rows } = await pool.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
    [table.toLowerCase()],
  );
  const present = new Set(rows.map((row) => row.column_name));
  const missing = ADDED_COLUMNS.filter(([name]) => !present.has(name));
  if (missing.length > 0)
    await pool.query(`ALTER TABLE ${table} ${missing.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${name} ${type}`).join(", ")}`);
}

/** A batch of events as one INSERT that skips ids already written (delivery is at least once). */
export async function insertUsageRows(pool: Pool, table: string, events: readonly UsageEvent[]): Promise<void> {
  const values: unknown[] = [];
  const tuples = events.map((event, row) => {
    values.push(...usageRowOf(event));
    return `(${USAGE_COLUMNS.map((_, column) => `$${row * USAGE_COLUMNS.length + column + 1}`).join(", ")})`;
  });
  await pool.query(`INSERT INTO ${table} (${USAGE_COLUMNS.join(", ")}) VALUES ${tuples.join(", ")} ON CONFLICT (id) DO NOTHING`, values);
}
