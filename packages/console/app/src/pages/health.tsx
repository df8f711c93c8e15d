import { api } from "../api.js";
import { Panel, Problem, Status } from "../components/common.js";
import { useData } from "../use-data.js";

interface Dependency {
  status: string;
  required: boolean;
  latencyMs?: number;
  message?: string;
}
interface Health {
  status: string;
  state: string;
  uptime: number;
  version: string;
  dependencies: Record<string, Dependency>;
}

/** What a dependency's name says it is, for operators scanning the list. */
function kindOf(name: string): string {
  const lower = name.toLowerCase();
  if (lower.includes("redis") || lower === "ratelimitstore") return "Redis";
  if (lower.includes("postgres") || lower.includes("database") || lower.includes("history")) return "PostgreSQL";
  if (lower.startsWith("mcp")) return "MCP server";
  if (lower.includes("auth") || lower.includes("identity") || lower.includes("oidc") || lower.includes("jwks")) return "Identity provider";
  return "Dependency";
}

export function HealthPage() {
  const { data, error } = useData(() => api<Health>("health"), 5000);
  const entries = Object.entries(data?.dependencies ?? {});
  return (
    <Panel title="Health">
      <Problem error={error} />
      {data && (
        <p>
          Server <Status value={data.status} /> · state {data.state} · version {data.version} · up {Math.round(data.uptime)} s
        </p>
      )}
      <table>
        <caption>Dependencies, checked every 5 seconds</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Required</th>
            <th scope="col">Latency</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {entries.length === 0 && (
            <tr>
              <td colSpan={6}>No external dependency is configured (memory stores only).</td>
            </tr>
          )}
          {entries.map(([name, dependency]) => (
            <tr key={name} data-testid={`dependency-${name}`}>
              <td>{name}</td>
              <td>{kindOf(name)}</td>
              <td>
                <Status value={dependency.status} />
              </td>
              <td>{dependency.required ? "yes" : "no"}</td>
              <td>{dependency.latencyMs === undefined ? "–" : `${dependency.latencyMs} ms`}</td>
              <td>{dependency.message ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
