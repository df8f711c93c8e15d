import { useState } from "preact/hooks";
import { api, apiUrl } from "../api.js";
import { Panel, Problem, Status } from "../components/common.js";
import { useData } from "../use-data.js";

interface AuditRow {
  seq: number;
  id: string;
  time: string;
  actor: { kind: string; id: string; hint?: string };
  role?: string;
  action: string;
  target: { type: string; id: string };
  outcome: string;
  clientAddress?: string;
}

interface Filters {
  actor: string;
  action: string;
  target: string;
  days: number;
}

const query = (filters: Filters, csv = false) => {
  const params = new URLSearchParams({ from: new Date(Date.now() - filters.days * 86_400_000).toISOString(), limit: "500" });
  for (const name of ["actor", "action", "target"] as const) if (filters[name].trim() !== "") params.set(name, filters[name].trim());
  if (csv) params.set("format", "csv");
  return `admin/audit?${params.toString()}`;
};

/** The audit log, newest first, with its filters; read-only (nothing edits an entry). */
export function AuditPage() {
  const [draft, setDraft] = useState<Filters>({ actor: "", action: "", target: "", days: 7 });
  const [filters, setFilters] = useState<Filters>(draft);
  const events = useData(() => api<AuditRow[]>(query(filters)), 15_000, [filters]);
  const field = (name: "actor" | "action" | "target", label: string, placeholder: string) => (
    <label>
      {label}
      <input
        name={name}
        value={draft[name]}
        placeholder={placeholder}
        onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })}
      />
    </label>
  );
  return (
    <Panel
      title="Audit"
      actions={
        <a class="button" href={apiUrl(query(filters, true))} download="conduit-audit.csv">
          Export CSV
        </a>
      }
    >
      <form
        class="form toolbar"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        {field("actor", "Actor", "ak_… or a user id")}
        {field("action", "Action", "key.revoke")}
        {field("target", "Target", "key:key_… or an id")}
        <label>
          Period
          <select
            name="days"
            value={String(draft.days)}
            onChange={(event) => setDraft({ ...draft, days: Number(event.currentTarget.value) })}
          >
            <option value="1">1 day</option>
            <option value="7">7 days</option>
            <option value="30">30 days</option>
            <option value="365">1 year</option>
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      <Problem error={events.error} />
      <table>
        <caption>Administrative acts, sign-ins and sign-outs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Actor</th>
            <th scope="col">Role</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Outcome</th>
            <th scope="col">Address</th>
          </tr>
        </thead>
        <tbody>
          {(events.data ?? []).map((row) => (
            <tr key={row.id} data-testid={`audit-${row.action}`}>
              <td>{new Date(row.time).toLocaleString()}</td>
              <td>
                {row.actor.hint ?? ""} <code>{row.actor.id}</code>
              </td>
              <td>{row.role ?? "–"}</td>
              <td>{row.action}</td>
              <td>
                {row.target.type} <code>{row.target.id}</code>
              </td>
              <td>
                <Status value={row.outcome} />
              </td>
              <td>{row.clientAddress ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
