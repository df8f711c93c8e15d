import { useEffect, useState } from "preact/hooks";
import { type SessionInfo, api, can, formatNumber, formatUsd } from "../api.js";
import { Bar, Panel, Problem, Status } from "../components/common.js";
import { useData } from "../use-data.js";

interface Totals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
  cost: number;
}
interface AccountRow {
  id: string;
  vendor: string;
  type?: string;
  status: string;
  cooldownUntil: string | null;
  cooldownReason: string | null;
  disabledReason: string | null;
  inFlight: number;
  quota: { updatedAt: number; limits: Record<string, Record<string, string>> } | null;
  usage: { totals: Totals };
}

/** A quota window's use as a fraction: `utilization`, else `(limit − remaining) / limit`. */
function usedFraction(fields: Record<string, string>): number | undefined {
  if (fields.utilization !== undefined) return Number(fields.utilization);
  const limit = Number(fields.limit);
  const remaining = Number(fields.remaining);
  if (Number.isFinite(limit) && limit > 0 && Number.isFinite(remaining)) return (limit - remaining) / limit;
  return undefined;
}

function countdown(until: string | null, now: number): string {
  if (!until) return "";
  const seconds = Math.max(0, Math.round((Date.parse(until) - now) / 1000));
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes} min ${seconds % 60} s` : `${seconds} s`;
}

export function AccountsPage(props: { session: SessionInfo }) {
  const { data, error, reload } = useData(() => api<{ accounts: AccountRow[] }>("accounts"), 5000);
  const [now, setNow] = useState(Date.now());
  const [actionError, setActionError] = useState<string>();
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (!props.session.features.accounts) return <Panel title="Accounts">This server has no proxy accounts.</Panel>;

  const act = async (id: string, action: "disable" | "enable") => {
    try {
      await api(`accounts/${encodeURIComponent(id)}/${action}`, { method: "POST" });
      setActionError(undefined);
      reload();
    } catch (failure) {
      setActionError((failure as Error).message);
    }
  };

  return (
    <Panel title="Accounts">
      <Problem error={error ?? actionError} />
      <table>
        <caption>Upstream accounts of the proxy pool (quota from the last response headers)</caption>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Status</th>
            <th scope="col">Cooldown</th>
            <th scope="col">Quota windows</th>
            <th scope="col">Requests</th>
            <th scope="col">Tokens in / out</th>
            <th scope="col">Cost</th>
            {props.session.features.accountControl && can(props.session, "accounts.write") && <th scope="col">Action</th>}
          </tr>
        </thead>
        <tbody>
          {(data?.accounts ?? []).map((account) => (
            <tr key={account.id} data-testid={`account-${account.id}`}>
              <td>
                {account.id}
                <div class="muted">{account.vendor}</div>
              </td>
              <td>
                <Status value={account.status} />
                {account.disabledReason && <div class="muted">{account.disabledReason}</div>}
              </td>
              <td data-testid={`cooldown-${account.id}`}>
                {countdown(account.cooldownUntil, now)}
                {account.cooldownReason && <div class="muted">{account.cooldownReason}</div>}
              </td>
              <td>
                {Object.entries(account.quota?.limits ?? {}).map(([name, fields]) => {
                  const used = usedFraction(fields);
                  return used === undefined ? null : (
                    <div key={name} class="quota">
                      <span class="quota-name">{name}</span>
                      <Bar label={`${account.id} ${name} used`} value={used} max={1} />
                    </div>
                  );
                })}
              </td>
              <td>{formatNumber(account.usage.totals.requests)}</td>
              <td>
                {formatNumber(account.usage.totals.inputTokens)} / {formatNumber(account.usage.totals.outputTokens)}
              </td>
              <td>{formatUsd(account.usage.totals.cost)}</td>
              {props.session.features.accountControl && can(props.session, "accounts.write") && (
                <td>
                  {account.status === "disabled" ? (
                    <button type="button" onClick={() => act(account.id, "enable")}>
                      Enable
                    </button>
                  ) : (
                    <button type="button" class="danger" onClick={() => act(account.id, "disable")}>
                      Disable
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
