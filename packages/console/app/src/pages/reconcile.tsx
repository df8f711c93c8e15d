import { useState } from "preact/hooks";
import { api } from "../api.js";
import { Panel, Problem, Status } from "../components/common.js";
import { type ReconcileRow, overThreshold, signedNumber, signedUsd, utcDay } from "../components/reconcile-rows.js";

interface ReconcileReport {
  provider: string;
  from: string;
  to: string;
  rows: ReconcileRow[];
  totals: { conduitUsd: number; vendorUsd: number; driftUsd: number; driftTokens: number; driftingRows: number };
}

const usd = (value: number) => `$${value.toFixed(6)}`;
const tokensOf = (side: { inputTokens: number; outputTokens: number } | null) => (side ? side.inputTokens + side.outputTokens : 0);

/**
 * The vendor's own usage and cost reports beside Conduit's usage history, per day and model
 * (`GET /admin/reconcile`). Read on demand, not on a timer: each read calls the vendor's Admin API.
 */
export function ReconcilePage() {
  const [provider, setProvider] = useState("anthropic");
  const [from, setFrom] = useState(utcDay(7));
  const [to, setTo] = useState(utcDay(0));
  const [threshold, setThreshold] = useState(0.01);
  const [report, setReport] = useState<ReconcileReport>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);

  const run = async (event: Event) => {
    event.preventDefault();
    setLoading(true);
    const params = new URLSearchParams({ provider, from, to });
    try {
      setReport(await api<ReconcileReport>(`admin/reconcile?${params.toString()}`));
      setError(undefined);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setLoading(false);
    }
  };

  return (
    <Panel
      title="Reconciliation"
      actions={
        <form class="toolbar" onSubmit={run}>
          <label>
            Provider
            <input name="provider" value={provider} required onInput={(event) => setProvider(event.currentTarget.value)} />
          </label>
          <label>
            From
            <input name="from" type="date" value={from} required onInput={(event) => setFrom(event.currentTarget.value)} />
          </label>
          <label>
            To
            <input name="to" type="date" value={to} required onInput={(event) => setTo(event.currentTarget.value)} />
          </label>
          <label>
            Red above ($)
            <input
              name="threshold"
              type="number"
              min="0"
              step="0.000001"
              value={String(threshold)}
              onInput={(event) => setThreshold(Math.max(0, Number(event.currentTarget.value) || 0))}
            />
          </label>
          <button type="submit" disabled={loading}>
            {loading ? "Reading…" : "Reconcile"}
          </button>
        </form>
      }
    >
      <Problem error={error} />
      {report && (
        <>
          <p data-testid="reconcile-summary">
            {report.provider}, {report.from} to {report.to}: Conduit {usd(report.totals.conduitUsd)}, vendor {usd(report.totals.vendorUsd)},
            drift {signedUsd(report.totals.driftUsd)} and {signedNumber(report.totals.driftTokens)} tokens in {report.totals.driftingRows}{" "}
            row(s)
          </p>
          <table>
            <caption>Per day and model (drift = vendor − Conduit)</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Model</th>
                <th scope="col">Conduit tokens</th>
                <th scope="col">Vendor tokens</th>
                <th scope="col">Drift tokens</th>
                <th scope="col">Conduit $</th>
                <th scope="col">Vendor $</th>
                <th scope="col">Drift $</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {report.rows.map((row) => (
                <tr
                  key={`${row.day} ${row.model}`}
                  class={overThreshold(row, threshold) ? "drift-over" : undefined}
                  data-testid={`reconcile-${row.day}-${row.model}`}
                >
                  <td>{row.day}</td>
                  <td>{row.model}</td>
                  <td>{tokensOf(row.conduit).toLocaleString("en-US")}</td>
                  <td>{row.vendor ? tokensOf(row.vendor).toLocaleString("en-US") : "—"}</td>
                  <td>{signedNumber(row.drift.tokens)}</td>
                  <td>{usd(row.conduit.usd)}</td>
                  <td>{row.vendor ? usd(row.vendor.usd) : "—"}</td>
                  <td>{signedUsd(row.drift.usd)}</td>
                  <td>
                    <Status value={row.status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Panel>
  );
}
