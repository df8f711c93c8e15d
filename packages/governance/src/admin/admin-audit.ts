import { randomUUID } from "node:crypto";
import { ServerAdapterError, type ServerContext } from "@conduit-ai/server-core";
import type { AuditEvent, AuditSink } from "../audit/audit-event.js";
import type { AdminPrincipal } from "../roles/admin-roles.js";
import { isOutOfScope } from "./admin-scope.js";

/** Fields that are, or would lead to, a secret: never in an audit entry's before/after. */
const SECRET_FIELDS = new Set(["key", "secret", "digest", "keyDigest", "credential", "password", "token"]);

/** A record as the audit log keeps it: secrets and digests removed, at every depth. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([name]) => !SECRET_FIELDS.has(name))
      .map(([name, item]) => [name, withoutSecrets(item)]),
  );
}

/** What an act is about, and what it changed. */
export interface AuditedAct {
  action: string;
  target: { type: string; id: string };
  team?: string | undefined;
  before?: unknown;
  after?: unknown;
}

/**
 * The audit event of an act on a request: actor and role from the principal, the request's id,
 * client address and user agent.
 *
 * @example
 * audit.append(auditEventOf(ctx, principal, { action: "key.revoke", target: { type: "key", id } }, "success"));
 */
export function auditEventOf(
  ctx: Pick<ServerContext, "requestId" | "clientAddress" | "header">,
  principal: AdminPrincipal,
  act: AuditedAct,
  outcome: AuditEvent["outcome"],
): AuditEvent {
  const userAgent = ctx.header("user-agent");
  return {
    id: randomUUID(),
    time: new Date().toISOString(),
    actor: { kind: principal.kind, id: principal.id, ...(principal.hint ? { hint: principal.hint } : {}) },
    role: principal.role,
    action: act.action,
    target: act.target,
    ...(act.team ? { team: act.team } : {}),
    ...(act.before === undefined ? {} : { before: withoutSecrets(act.before) }),
    ...(act.after === undefined ? {} : { after: withoutSecrets(act.after) }),
    requestId: ctx.requestId,
    clientAddress: ctx.clientAddress,
    ...(userAgent ? { userAgent: userAgent.slice(0, 512) } : {}),
    outcome,
  };
}

/**
 * Runs a state-changing admin act and appends exactly one audit event for it: `success` with
 * before/after, `denied` when the role or scope refused it (403/404), `failure` otherwise
 * (invalid, conflicting, a store outage); the error is rethrown unchanged. The event is appended
 * (awaited) before the act's answer or error goes back. `act` is filled in by
 * `run` as it learns (the record before, the team), so a refusal still names its target.
 */
export async function audited<T>(
  audit: AuditSink,
  ctx: Pick<ServerContext, "requestId" | "clientAddress" | "header">,
  principal: AdminPrincipal,
  act: AuditedAct,
  run: (act: AuditedAct) => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await run(act);
  } catch (error) {
    const denied = (ServerAdapterError.isInstance(error) && error.statusCode === 403) || isOutOfScope(error);
    await audit.append(auditEventOf(ctx, principal, { ...act, after: undefined }, denied ? "denied" : "failure"));
    throw error;
  }
  // Awaited: with a Redis outbox the event is durable before the answer leaves.
  await audit.append(auditEventOf(ctx, principal, act, "success"));
  return result;
}
