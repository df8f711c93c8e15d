import { randomUUID } from "node:crypto";
import type { ServerContext } from "@conduit-ai/server-core";

/** Who is signed in to the console: governance's principal (an admin key of the config, or a user) and their role. */
export interface ConsolePrincipal {
  kind: "admin-key" | "user";
  id: string;
  hint?: string;
  /** `admin`, `team-admin:<team>`, `viewer` or `auditor`. */
  role: string;
}

/** What the console asks of a role: the admin API's permissions, plus the console's own account control. */
export type ConsolePermission =
  | "keys.read"
  | "keys.write"
  | "teams.read"
  | "teams.write"
  | "usage.read"
  | "audit.read"
  | "console.read"
  | "accounts.write";

/** One act the console records (governance's audit event shape; the console depends on no governance code at run time). */
export interface ConsoleAuditEvent {
  id: string;
  time: string;
  actor: { kind: "admin-key" | "user"; id: string; hint?: string };
  role?: string;
  action: string;
  target: { type: string; id: string };
  before?: unknown;
  after?: unknown;
  requestId?: string;
  clientAddress?: string;
  userAgent?: string;
  outcome: "success" | "denied" | "failure";
}

/** Where the console's acts go: governance's audit sink (`governance.audit`). */
export interface ConsoleAuditLog {
  /** Awaited before the act's answer (governance's Redis outbox makes the event durable then); never rejects. */
  append(event: ConsoleAuditEvent): void | Promise<void>;
}

/** An actor for a sign-in that named nobody (a refused credential): never the credential, nor a digest of it. */
export const UNKNOWN_ACTOR = { kind: "user", id: "unknown" } as const;

/**
 * The audit event of a console act on a request.
 *
 * @example
 * audit?.append(consoleAuditEvent(ctx, principal, { action: "console.signout", target: { type: "console", id: "/console" } }, "success"));
 */
export function consoleAuditEvent(
  ctx: Pick<ServerContext, "requestId" | "clientAddress" | "header">,
  actor: Pick<ConsolePrincipal, "kind" | "id" | "hint"> & { role?: string },
  act: { action: string; target: { type: string; id: string }; before?: unknown; after?: unknown },
  outcome: ConsoleAuditEvent["outcome"],
): ConsoleAuditEvent {
  const userAgent = ctx.header("user-agent");
  return {
    id: randomUUID(),
    time: new Date().toISOString(),
    actor: { kind: actor.kind, id: actor.id, ...(actor.hint ? { hint: actor.hint } : {}) },
    ...(actor.role ? { role: actor.role } : {}),
    action: act.action,
    target: act.target,
    ...(act.before === undefined ? {} : { before: act.before }),
    ...(act.after === undefined ? {} : { after: act.after }),
    requestId: ctx.requestId,
    clientAddress: ctx.clientAddress,
    ...(userAgent ? { userAgent: userAgent.slice(0, 512) } : {}),
    outcome,
  };
}
