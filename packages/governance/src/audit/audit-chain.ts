import { createHash } from "node:crypto";
import type { AuditEvent, StoredAuditEvent } from "./audit-event.js";

/** The `prevHash` of the first row. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * JSON with object keys sorted at every depth and no `undefined` members: one text per value,
 * whatever order a writer or PostgreSQL's `jsonb` gave the keys.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}

/** A top-level field as the chain sees it: absent and null are one (a database column is null for both). */
const present = (value: unknown) => (value === null ? undefined : value);

/**
 * The event's own content as the chain binds it (its place included, so two rows cannot trade
 * places). The time is bound as its instant (`toISOString`), whatever notation it was written in.
 */
export function auditContent(event: AuditEvent, seq: number): string {
  const { id, action, target, outcome } = event;
  return canonicalJson({
    seq,
    id,
    time: new Date(event.time).toISOString(),
    actor: { kind: event.actor.kind, id: event.actor.id, hint: present(event.actor.hint) },
    role: present(event.role),
    action,
    target: { type: target.type, id: target.id },
    team: present(event.team),
    before: present(event.before),
    after: present(event.after),
    requestId: present(event.requestId),
    clientAddress: present(event.clientAddress),
    userAgent: present(event.userAgent),
    outcome,
  });
}

/**
 * A row's hash: SHA-256 (hex) of the previous row's hash and this row's canonical content.
 *
 * @example
 * const hash = chainHash(GENESIS_HASH, event, 1);
 */
export function chainHash(prevHash: string, event: AuditEvent, seq: number): string {
  return createHash("sha256").update(prevHash).update("\n").update(auditContent(event, seq)).digest("hex");
}

/** `event` placed after `previous` (or first): its seq, prevHash and hash. */
export function chained(event: AuditEvent, previous: Pick<StoredAuditEvent, "seq" | "hash"> | undefined): StoredAuditEvent {
  const seq = (previous?.seq ?? 0) + 1;
  const prevHash = previous?.hash ?? GENESIS_HASH;
  return { ...event, seq, prevHash, hash: chainHash(prevHash, event, seq) };
}

/** The first row that breaks the chain and why, or undefined when every row holds. */
export interface ChainBreak {
  seq: number;
  id: string;
  reason: string;
}

/**
 * Walks rows in `seq` order and names the first one that breaks the chain: its content edited
 * (its hash no longer matches), a row before it deleted or two rows swapped (its `prevHash` or
 * its seq no longer follows). `previous` is the row before the first one given (`--from`).
 *
 * @example
 * const broken = verifyChain(rows); // { seq: 7, id: "…", reason: "content does not match its hash" }
 */
export function verifyChain(
  rows: Iterable<StoredAuditEvent>,
  previous?: Pick<StoredAuditEvent, "seq" | "hash">,
): { checked: number; broken?: ChainBreak } {
  let expectedSeq = previous ? previous.seq + 1 : 1;
  let expectedPrev = previous?.hash ?? GENESIS_HASH;
  let checked = 0;
  for (const row of rows) {
    const fail = (reason: string) => ({ checked, broken: { seq: row.seq, id: row.id, reason } });
    if (row.seq !== expectedSeq) return fail(`expected seq ${expectedSeq} here (a row is missing or out of order)`);
    if (row.prevHash !== expectedPrev) return fail("prevHash is not the previous row's hash (a row was deleted, inserted or moved)");
    if (chainHash(row.prevHash, row, row.seq) !== row.hash) return fail("content does not match its hash (the row was edited)");
    expectedSeq = row.seq + 1;
    expectedPrev = row.hash;
    checked += 1;
  }
  return { checked };
}
