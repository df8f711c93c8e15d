import { AuthorizationError, type ServerAdapterError, resourceNotFound } from "@conduit-ai/server-core";
import type { KeyRecord, Limits, Policy, TeamRecord } from "../records.js";
import { type AdminPrincipal, teamOfRole } from "../roles/admin-roles.js";

const OUT_OF_SCOPE = Symbol.for("@conduit-ai/governance/out-of-scope");

/** A 404 for a record outside a team-admin's team: the same answer as an id that does not exist, so ids never leak. */
export function outOfScope(code: "KEY_NOT_FOUND" | "TEAM_NOT_FOUND", id: string): ServerAdapterError {
  const kind = code === "KEY_NOT_FOUND" ? "Key" : "Team";
  const error = resourceNotFound(code, `${kind} "${id}" not found`, { id });
  (error as unknown as Record<symbol, boolean>)[OUT_OF_SCOPE] = true;
  return error;
}

/** Whether `error` is a scope refusal dressed as a 404 (the audit log records it as `denied`). */
export function isOutOfScope(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[OUT_OF_SCOPE] === true;
}

/** The team a principal is confined to, or undefined for a role that sees every team. */
export function scopeOf(principal: AdminPrincipal): string | undefined {
  return teamOfRole(principal.role);
}

/** The key, unless a team-admin reaches outside their team (then 404, as for an unknown id). */
export function keyInScope(principal: AdminPrincipal, key: KeyRecord): KeyRecord {
  const team = scopeOf(principal);
  if (team !== undefined && key.team !== team) throw outOfScope("KEY_NOT_FOUND", key.id);
  return key;
}

/** The team id, unless a team-admin names another team (404, as for an unknown id). */
export function teamInScope(principal: AdminPrincipal, id: string): string {
  const team = scopeOf(principal);
  if (team !== undefined && id !== team) throw outOfScope("TEAM_NOT_FOUND", id);
  return id;
}

const LIMIT_FIELDS = ["rpm", "tpm", "concurrency"] as const satisfies ReadonlyArray<keyof Limits>;

/**
 * A team-admin sets a key's limits and budgets up to the team's own: a limit above the team's,
 * or a budget above the team's budget of the same window, is 403 `BEYOND_TEAM_POLICY`. An admin
 * is not held to it (the team still caps its keys together at run time).
 */
export function withinTeamPolicy(principal: AdminPrincipal, team: TeamRecord | undefined, key: Policy): void {
  if (scopeOf(principal) === undefined || team === undefined) return;
  const beyond: string[] = [];
  for (const field of LIMIT_FIELDS) {
    const own = team.limits?.[field];
    const asked = key.limits?.[field];
    if (own !== undefined && asked !== undefined && asked > own) beyond.push(`limits.${field} ${asked} > the team's ${own}`);
  }
  for (const budget of key.budgets ?? []) {
    const own = team.budgets?.find((item) => item.window === budget.window);
    if (own && budget.usd > own.usd) beyond.push(`budgets.${budget.window} ${budget.usd} USD > the team's ${own.usd} USD`);
  }
  if (beyond.length > 0)
    throw new AuthorizationError(`A team-admin sets limits and budgets up to the team's own: ${beyond.join("; ")}`, {
      code: "BEYOND_TEAM_POLICY",
      details: { team: team.id, beyond },
    });
}
