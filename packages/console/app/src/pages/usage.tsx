import { useState } from "preact/hooks";
import { api, apiUrl, formatNumber, formatUsd } from "../api.js";
import { utcDays } from "../components/chart-axes.js";
import { Chart } from "../components/chart.js";
import { Bar, Panel, Problem } from "../components/common.js";
import { useData } from "../use-data.js";

interface UsageRow {
  group: string;
  name?: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  /** The share of input tokens the prompt cache served. */
  cacheHitRatio?: number;
  /** Dollars the cache reads saved against the full input price. */
  savedUsd?: number;
}

const formatRatio = (ratio: number | undefined) => `${((ratio ?? 0) * 100).toFixed(1)} %`;

const DAY_MS = 86_400_000;

function range(days: number) {
  const to = new Date();
  return { from: new Date(to.getTime() - days * DAY_MS).toISOString(), to: to.toISOString() };
}

const query = (groupBy: string, days: number, csv = false) => {
  const { from, to } = range(days);
  const params = new URLSearchParams({ groupBy, from, to });
  if (csv) params.set("format", "csv");
  return `admin/usage?${params.toString()}`;
};

export function UsagePage() {
  const [groupBy, setGroupBy] = useState<"model" | "key" | "team" | "user">("model");
  const [days, setDays] = useState(30);
  const daily = useData(() => api<UsageRow[]>(query("day", days)), 30_000, [days]);
  const grouped = useData(() => api<UsageRow[]>(query(groupBy, days)), 30_000, [groupBy, days]);
  // Every day of the period, a day without usage at zero: the chart spans the period asked for, in days.
  const byDay = new Map((daily.data ?? []).map((row) => [row.group, row]));
  const dayX = utcDays(days + 1);
  const dayRows = dayX.map((seconds) => byDay.get(new Date(seconds * 1000).toISOString().slice(0, 10)));
  const maxCost = Math.max(0, ...(grouped.data ?? []).map((row) => row.costUsd));
  // The period's savings: what the cache reads did not cost at the full input price.
  const savedTotal = (grouped.data ?? []).reduce((sum, row) => sum + (row.savedUsd ?? 0), 0);
  const costTotal = (grouped.data ?? []).reduce((sum, row) => sum + row.costUsd, 0);

  return (
    <Panel
      title="Usage"
      actions={
        <div class="toolbar">
          <label>
            Group by
            <select name="group-by" value={groupBy} onChange={(event) => setGroupBy(event.currentTarget.value as typeof groupBy)}>
              {["model", "key", "team", "user"].map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </select>
          </label>
          <label>
            Period
            <select name="days" value={String(days)} onChange={(event) => setDays(Number(event.currentTarget.value))}>
              <option value="1">1 day</option>
              <option value="7">7 days</option>
              <option value="30">30 days</option>
              <option value="90">90 days</option>
            </select>
          </label>
          <a class="button" href={apiUrl(query(groupBy, days, true))} download={`conduit-usage-by-${groupBy}.csv`}>
            Export CSV
          </a>
        </div>
      }
    >
      <Problem error={daily.error ?? grouped.error} />
      <p data-testid="usage-savings">
        Prompt cache saved <strong>{formatUsd(savedTotal)}</strong> over the last {days} days (spent {formatUsd(costTotal)}).
      </p>
      <Chart
        label="Tokens and cost per day"
        axis="day"
        x={dayX}
        series={[
          { label: "input tokens", values: dayRows.map((row) => row?.inputTokens ?? 0) },
          { label: "output tokens", values: dayRows.map((row) => row?.outputTokens ?? 0) },
          { label: "cost (millidollars)", values: dayRows.map((row) => Math.round((row?.costUsd ?? 0) * 1000)) },
        ]}
      />
      <table>
        <caption>
          Usage by {groupBy} over the last {days} days
        </caption>
        <thead>
          <tr>
            <th scope="col">{groupBy}</th>
            <th scope="col">Requests</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Cache read / write</th>
            <th scope="col">Cache hit ratio</th>
            <th scope="col">Saved by cache</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {(grouped.data ?? []).map((row) => (
            <tr key={row.group} data-testid={`usage-${row.group}`}>
              <td>{row.name ?? row.group}</td>
              <td>{formatNumber(row.requests)}</td>
              <td>{formatNumber(row.inputTokens)}</td>
              <td>{formatNumber(row.outputTokens)}</td>
              <td>
                {formatNumber(row.cacheReadTokens)} / {formatNumber(row.cacheWriteTokens)}
              </td>
              <td>{formatRatio(row.cacheHitRatio)}</td>
              <td>{formatUsd(row.savedUsd)}</td>
              <td>
                <Bar label={`cost of ${row.name ?? row.group}`} value={row.costUsd} max={maxCost} text={formatUsd(row.costUsd)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
