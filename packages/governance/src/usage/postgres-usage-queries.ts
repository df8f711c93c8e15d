import type { Pool } from "pg";
import { type DailyUsageRow, type UsageGroupBy, type UsageQuery, type UsageRow, cacheHitRatio } from "./usage-event.js";

const GROUP_COLUMNS: Record<UsageGroupBy, string> = {
  key: "key_id",
  team: "coalesce(team, '')",
  user: "coalesce(user_id, '')",
  model: "model",
  day: "to_char(time at time zone 'UTC', 'YYYY-MM-DD')",
};

/** The usage of a time window grouped by key, team, user, model or day (the admin API's `/admin/usage`). */
export async function queryUsage(pool: Pool, table: string, query: UsageQuery): Promise<UsageRow[]> {
  const group = GROUP_COLUMNS[query.groupBy];
  const result = await pool.query(
    `SELECT ${group} AS "group", count(*) AS requests, sum(input_tokens) AS input, sum(output_tokens) AS output,
      sum(cache_read_tokens) AS cache_read, sum(cache_write_tokens) AS cache_write, sum(cost_usd) AS cost,
      sum(saved_usd) AS saved, count(*) FILTER (WHERE estimated) AS estimated
     FROM ${table} WHERE time >= $1 AND time < $2 GROUP BY 1 ORDER BY 1`,
    [query.from.toISOString(), query.to.toISOString()],
  );
  return result.rows.map((row: Record<string, string>) => {
    const sums = summedRow(row);
    return {
      group: row.group ?? "",
      ...sums,
      cacheHitRatio: cacheHitRatio(sums),
      savedUsd: Number(row.saved),
      estimatedRequests: Number(row.estimated),
    };
  });
}

/** The sums both queries select (`requests`, `input`, `output`, `cache_read`, `cache_write`, `cost`), as numbers. */
function summedRow(row: Record<string, string>) {
  return {
    requests: Number(row.requests),
    inputTokens: Number(row.input),
    outputTokens: Number(row.output),
    cacheReadTokens: Number(row.cache_read),
    cacheWriteTokens: Number(row.cache_write),
    costUsd: Number(row.cost),
  };
}

/** Model calls summed per UTC day and target (what reconciliation compares with a vendor's report). */
export async function dailyUsageRows(pool: Pool, table: string, range: { from: Date; to: Date }): Promise<DailyUsageRow[]> {
  // Days in UTC, as the vendors' daily buckets are; tool calls carry no tokens of a vendor.
  const result = await pool.query(
    `SELECT to_char(time at time zone 'UTC', 'YYYY-MM-DD') AS day, coalesce(target, model) AS target, count(*) AS requests,
      sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cache_read_tokens) AS cache_read,
      sum(cache_write_tokens) AS cache_write, sum(cost_usd) AS cost
     FROM ${table} WHERE time >= $1 AND time < $2 AND kind = 'model' GROUP BY 1, 2 ORDER BY 1, 2`,
    [range.from.toISOString(), range.to.toISOString()],
  );
  return result.rows.map((row: Record<string, string>) => ({ day: row.day ?? "", target: row.target ?? "", ...summedRow(row) }));
}
