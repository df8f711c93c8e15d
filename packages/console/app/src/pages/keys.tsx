import { useState } from "preact/hooks";
import { type SessionInfo, api, can, formatUsd } from "../api.js";
import { Bar, Panel, Problem } from "../components/common.js";
import { useData } from "../use-data.js";
import { SecretOnce } from "./secret-once.js";

interface Spend {
  window: string;
  usd: number;
  spentUsd: number;
  remainingUsd: number;
  resetsAt?: string | null;
}
interface KeyRow {
  id: string;
  name: string;
  hint?: string;
  team?: string | null;
  models?: string[];
  expiresAt?: string | null;
  spend?: Spend[];
}
interface TeamRow {
  id: string;
  name: string;
  models?: string[];
  spend?: Spend[];
}

/** Each row with its detail (`GET /admin/<kind>/{id}` carries `spend`). */
async function withSpend<T extends { id: string }>(kind: "keys" | "teams"): Promise<T[]> {
  const rows = await api<T[]>(`admin/${kind}`);
  return Promise.all(rows.map((row) => api<T>(`admin/${kind}/${encodeURIComponent(row.id)}`).catch(() => row)));
}

function SpendBars(props: { owner: string; spend: Spend[] | undefined }) {
  if (!props.spend || props.spend.length === 0) return <span class="muted">no budget</span>;
  return (
    <div>
      {props.spend.map((entry) => (
        <div key={entry.window} class="quota">
          <span class="quota-name">{entry.window}</span>
          <Bar
            label={`${props.owner} spend of the ${entry.window} budget`}
            value={entry.spentUsd}
            max={entry.usd}
            text={`${formatUsd(entry.spentUsd)} of ${formatUsd(entry.usd)}`}
          />
        </div>
      ))}
    </div>
  );
}

function CreateKey(props: { teams: TeamRow[]; onCreated: (secret: { name: string; key: string }) => void }) {
  const [name, setName] = useState("");
  const [team, setTeam] = useState("");
  const [models, setModels] = useState("");
  const [budget, setBudget] = useState("");
  const [window, setWindow] = useState("month");
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const body: Record<string, unknown> = { name: name.trim() };
    if (team) body.team = team;
    const modelList = models
      .split(",")
      .map((model) => model.trim())
      .filter(Boolean);
    if (modelList.length > 0) body.models = modelList;
    if (budget.trim() !== "") body.budgets = [{ usd: Number(budget), window }];
    try {
      const created = await api<{ id: string; key: string; name: string }>("admin/keys", { method: "POST", body });
      setError(undefined);
      setName("");
      setModels("");
      setBudget("");
      props.onCreated({ name: created.name, key: created.key });
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <form class="form" onSubmit={submit} aria-label="Create a key">
      <label>
        Name
        <input name="name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <label>
        Team
        <select name="team" value={team} onChange={(event) => setTeam(event.currentTarget.value)}>
          <option value="">none</option>
          {props.teams.map((entry) => (
            <option key={entry.id} value={entry.id}>
              {entry.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Models (comma-separated, empty: all)
        <input name="models" value={models} onInput={(event) => setModels(event.currentTarget.value)} />
      </label>
      <label>
        Budget (USD)
        <input name="budget" type="number" min="0" step="0.01" value={budget} onInput={(event) => setBudget(event.currentTarget.value)} />
      </label>
      <label>
        Budget window
        <select name="window" value={window} onChange={(event) => setWindow(event.currentTarget.value)}>
          {["day", "week", "month", "total"].map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Create key</button>
      <Problem error={error} />
    </form>
  );
}

function CreateTeam(props: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [budget, setBudget] = useState("");
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await api("admin/teams", {
        method: "POST",
        body: { name: name.trim(), ...(budget.trim() === "" ? {} : { budgets: [{ usd: Number(budget), window: "month" }] }) },
      });
      setName("");
      setBudget("");
      setError(undefined);
      props.onCreated();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <form class="form" onSubmit={submit} aria-label="Create a team">
      <label>
        Team name
        <input name="team-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <label>
        Monthly budget (USD)
        <input
          name="team-budget"
          type="number"
          min="0"
          step="0.01"
          value={budget}
          onInput={(event) => setBudget(event.currentTarget.value)}
        />
      </label>
      <button type="submit">Create team</button>
      <Problem error={error} />
    </form>
  );
}

export function KeysPage(props: { session: Pick<SessionInfo, "permissions"> }) {
  // Hidden, not merely disabled: the admin API refuses these writes for the role anyway (403).
  const writesKeys = can(props.session, "keys.write");
  const writesTeams = can(props.session, "teams.write");
  const keys = useData(() => withSpend<KeyRow>("keys"), 10_000);
  const teams = useData(() => withSpend<TeamRow>("teams"), 10_000);
  const [secret, setSecret] = useState<{ name: string; key: string }>();
  const [error, setError] = useState<string>();
  const teamName = (id: string | null | undefined) => teams.data?.find((team) => team.id === id)?.name ?? id ?? "–";

  const rotate = async (row: KeyRow) => {
    try {
      const rotated = await api<{ key: string; name?: string }>(`admin/keys/${encodeURIComponent(row.id)}/rotate`, {
        method: "POST",
        body: { graceSeconds: 300 },
      });
      setSecret({ name: rotated.name ?? row.name, key: rotated.key });
      keys.reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const revoke = async (row: KeyRow) => {
    if (!window.confirm(`Revoke the key "${row.name}"? Every request with it fails from now on.`)) return;
    try {
      await api(`admin/keys/${encodeURIComponent(row.id)}`, { method: "DELETE" });
      keys.reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <>
      {secret && <SecretOnce name={secret.name} secret={secret.key} onClose={() => setSecret(undefined)} />}
      <Panel title="Keys">
        <Problem error={keys.error ?? error} />
        {writesKeys && (
          <CreateKey
            teams={teams.data ?? []}
            onCreated={(created) => {
              setSecret(created);
              keys.reload();
            }}
          />
        )}
        <table>
          <caption>Virtual keys (secrets are never shown again after creation)</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Team</th>
              <th scope="col">Models</th>
              <th scope="col">Spend against budget</th>
              {writesKeys && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {(keys.data ?? []).map((row) => (
              <tr key={row.id} data-testid={`key-${row.name}`}>
                <td>{row.name}</td>
                <td>
                  <code>…{row.hint ?? ""}</code>
                </td>
                <td>{teamName(row.team)}</td>
                <td>{row.models && row.models.length > 0 ? row.models.join(", ") : "all"}</td>
                <td>
                  <SpendBars owner={row.name} spend={row.spend} />
                </td>
                {writesKeys && (
                  <td class="actions">
                    <button type="button" onClick={() => rotate(row)}>
                      Rotate
                    </button>
                    <button type="button" class="danger" onClick={() => revoke(row)}>
                      Revoke
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
      <Panel title="Teams">
        <Problem error={teams.error} />
        {writesTeams && <CreateTeam onCreated={teams.reload} />}
        <table>
          <caption>Teams: their limits and budgets cap all their keys together</caption>
          <thead>
            <tr>
              <th scope="col">Team</th>
              <th scope="col">Models</th>
              <th scope="col">Spend against budget</th>
            </tr>
          </thead>
          <tbody>
            {(teams.data ?? []).map((row) => (
              <tr key={row.id} data-testid={`team-${row.name}`}>
                <td>{row.name}</td>
                <td>{row.models && row.models.length > 0 ? row.models.join(", ") : "all"}</td>
                <td>
                  <SpendBars owner={row.name} spend={row.spend} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
    </>
  );
}
