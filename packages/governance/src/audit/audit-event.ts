import type { DependencyHealth } from "@conduit-ai/server-core";

/** Who did it: an admin key of the config (never the key: its id and last 4 characters), or a user. */
export interface AuditActor {
  kind: "admin-key" | "user";
  id: string;
  hint?: string;
}

/** One administrative act, as appended: never a secret, never a key digest. */
export interface AuditEvent {
  /** Unique per event: a retried write of the same event is stored once. */
  id: string;
  /** ISO time of the act. */
  time: string;
  actor: AuditActor;
  /** The role the actor acted with (`admin`, `team-admin:<team>`, `viewer`, `auditor`); absent for a refused sign-in. */
  role?: string;
  /** `key.create`, `key.update`, `key.rotate`, `key.revoke`, `team.create`, `team.update`, `team.delete`, `account.disable`, `account.enable`, `console.signin`, `console.signout`. */
  action: string;
  target: { type: string; id: string };
  /** The team the target belongs to, when it belongs to one: what a team-admin may read. */
  team?: string;
  before?: unknown;
  after?: unknown;
  requestId?: string;
  clientAddress?: string;
  userAgent?: string;
  /** `success`; `denied` (refused for the role or scope); `failure` (invalid, conflicting, or a refused sign-in). */
  outcome: "success" | "denied" | "failure";
}

/** An event as stored: its place in the one chain and the hashes that bind it there. */
export interface StoredAuditEvent extends AuditEvent {
  /** 1, 2, 3 …: the chain's order. */
  seq: number;
  /** The previous row's `hash` (64 zeros for the first). */
  prevHash: string;
  /** SHA-256 (hex) of `prevHash` and this event's canonical content. */
  hash: string;
}

/** `GET /admin/audit` filters: every one given must match. */
export interface AuditQuery {
  from?: Date;
  to?: Date;
  /** The actor's id. */
  actor?: string;
  action?: string;
  /** The target's id, or `<type>:<id>`. */
  target?: string;
  /** Only events of this team (what a team-admin reads). */
  team?: string;
  /** At most this many, newest first. */
  limit: number;
}

/** Where audit events go: memory (lost on restart) or PostgreSQL (durable, hash-chained; with Redis through an outbox). */
export interface AuditSink {
  readonly kind: "memory" | "postgres";
  /**
   * Records an act; the caller awaits it before answering. Never rejects. With a Redis outbox it
   * resolves once the event is in Redis (a process killed after its answer loses none); otherwise
   * at once: buffered, written later (a PostgreSQL outage spills to a file).
   */
  append(event: AuditEvent): void | Promise<void>;
  query(query: AuditQuery): Promise<StoredAuditEvent[]>;
  /** Writes what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  health?(): Promise<DependencyHealth>;
  close(): Promise<void>;
}

/** Whether a stored event passes the query's filters (the memory sink's test, and the documentation of the Postgres query). */
export function auditEventMatches(event: StoredAuditEvent, query: AuditQuery): boolean {
  const time = Date.parse(event.time);
  if (query.from && time < query.from.getTime()) return false;
  if (query.to && time > query.to.getTime()) return false;
  if (query.actor !== undefined && event.actor.id !== query.actor) return false;
  if (query.action !== undefined && event.action !== query.action) return false;
  if (query.target !== undefined && event.target.id !== query.target && `${event.target.type}:${event.target.id}` !== query.target)
    return false;
  if (query.team !== undefined && event.team !== query.team) return false;
  return true;
}
