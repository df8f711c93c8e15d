import { randomBytes, randomUUID } from "node:crypto";
import { AuthenticationError, type ServerAdapter, ServerAdapterError, type ServerContext, rawResponse } from "@conduit-ai/server-core";

/**
 * TEST ONLY — issue 21's `/admin` contract in memory, so the browser tests can drive the Keys,
 * Teams and Usage pages while `@conduit-ai/governance` is not on main. The shapes are the
 * contract's (`{data}` envelopes, `hint`, `spend[]`, CSV with the field names as header). Replace
 * with `createGovernance(...).install(server)` once governance is merged.
 */
export interface StandInKey {
  id: string;
  name: string;
  team?: string;
  models?: string[];
  budgets?: Array<{ usd: number; window: string }>;
  hint: string;
  secret: string;
  spentUsd: number;
}

export function registerAdminStandIn(server: ServerAdapter, adminKey: string) {
  const keys = new Map<string, StandInKey>();
  const teams = new Map<string, { id: string; name: string; budgets?: Array<{ usd: number; window: string }>; spentUsd: number }>();
  const guard = (ctx: ServerContext) => {
    if (ctx.header("authorization") !== `Bearer ${adminKey}`) throw new AuthenticationError("An admin key is required (Authorization: Bearer)");
  };
  const spend = (budgets: Array<{ usd: number; window: string }> | undefined, spentUsd: number) =>
    (budgets ?? []).map((budget) => ({ ...budget, spentUsd, remainingUsd: Math.max(0, budget.usd - spentUsd), resetsAt: null }));
  const publicKey = ({ secret: _secret, spentUsd, ...key }: StandInKey) => ({ ...key, spend: spend(key.budgets, spentUsd) });
  const notFound = () => new ServerAdapterError("No such key", { code: "NOT_FOUND", statusCode: 404 });
  const usageRows = [
    { group: "claude-sonnet-4-5", name: "claude-sonnet-4-5", requests: 12, inputTokens: 3400, outputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0237 },
    { group: "gpt-5-mini", name: "gpt-5-mini", requests: 4, inputTokens: 800, outputTokens: 120, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0011 },
  ];
  const days = [0, 1, 2].map((back) => ({
    group: new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10),
    requests: 5 + back,
    inputTokens: 1000 * (back + 1),
    outputTokens: 300 * (back + 1),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.01 * (back + 1),
  }));
  const route = (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, handler: (ctx: ServerContext) => unknown, successStatus?: number) =>
    server.registerRoute({ method, path, absolute: true, ...(successStatus ? { successStatus } : {}), handler: (ctx) => (guard(ctx), handler(ctx)) });

  route(
    "POST",
    "/admin/keys",
    (ctx) => {
      const body = ctx.body as Omit<StandInKey, "id" | "hint" | "secret" | "spentUsd">;
      const secret = `sk-conduit-${randomBytes(32).toString("base64url")}`;
      const key: StandInKey = { ...body, id: randomUUID(), hint: secret.slice(-4), secret, spentUsd: 0 };
      keys.set(key.id, key);
      return { ...publicKey(key), key: secret };
    },
    201,
  );
  route("GET", "/admin/keys", () => [...keys.values()].map(({ secret: _secret, spentUsd: _spent, ...key }) => key));
  route("GET", "/admin/keys/:id", (ctx) => {
    const key = keys.get(ctx.params.id as string);
    if (!key) throw notFound();
    return publicKey(key);
  });
  route("DELETE", "/admin/keys/:id", (ctx) => {
    if (!keys.delete(ctx.params.id as string)) throw notFound();
    return { id: ctx.params.id, revoked: true };
  });
  route("POST", "/admin/keys/:id/rotate", (ctx) => {
    const key = keys.get(ctx.params.id as string);
    if (!key) throw notFound();
    key.secret = `sk-conduit-${randomBytes(32).toString("base64url")}`;
    key.hint = key.secret.slice(-4);
    return { ...publicKey(key), key: key.secret };
  });
  route(
    "POST",
    "/admin/teams",
    (ctx) => {
      const body = ctx.body as { name: string; budgets?: Array<{ usd: number; window: string }> };
      const team = { id: randomUUID(), ...body, spentUsd: 0 };
      teams.set(team.id, team);
      return team;
    },
    201,
  );
  route("GET", "/admin/teams", () => [...teams.values()].map(({ spentUsd: _spent, ...team }) => team));
  route("GET", "/admin/teams/:id", (ctx) => {
    const team = teams.get(ctx.params.id as string);
    if (!team) throw notFound();
    const { spentUsd, ...rest } = team;
    return { ...rest, spend: spend(team.budgets, spentUsd) };
  });
  route("GET", "/admin/usage", (ctx) => {
    const rows = ctx.query.groupBy === "day" ? days : usageRows;
    if (ctx.query.format !== "csv") return rows;
    const fields = ["group", "name", "requests", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "costUsd"] as const;
    const lines = rows.map((row) => fields.map((field) => String((row as Record<string, unknown>)[field] ?? "")).join(","));
    return rawResponse([fields.join(","), ...lines].join("\n"), { headers: { "content-type": "text/csv; charset=utf-8" } });
  });
  return { keys, teams, setSpend: (id: string, usd: number) => Object.assign(keys.get(id) ?? {}, { spentUsd: usd }) };
}
