import { type RouteDefinition, defineRoute, rawResponse, storeCall } from "@conduit-ai/server-core";
import type { AuditSink, StoredAuditEvent } from "../audit/audit-event.js";
import { badRequest } from "./admin-refusals.js";
import type { AllowedCheck } from "./admin-route-kit.js";
import { scopeOf } from "./admin-scope.js";
import { auditQuerySchema } from "./admin-schemas.js";

/** Columns of `GET /admin/audit?format=csv`, in order. */
const CSV_COLUMNS: Array<[string, (event: StoredAuditEvent) => unknown]> = [
  ["seq", (event) => event.seq],
  ["id", (event) => event.id],
  ["time", (event) => event.time],
  ["actorKind", (event) => event.actor.kind],
  ["actorId", (event) => event.actor.id],
  ["actorHint", (event) => event.actor.hint],
  ["role", (event) => event.role],
  ["action", (event) => event.action],
  ["targetType", (event) => event.target.type],
  ["targetId", (event) => event.target.id],
  ["team", (event) => event.team],
  ["outcome", (event) => event.outcome],
  ["requestId", (event) => event.requestId],
  ["clientAddress", (event) => event.clientAddress],
  ["userAgent", (event) => event.userAgent],
  ["before", (event) => (event.before === undefined ? undefined : JSON.stringify(event.before))],
  ["after", (event) => (event.after === undefined ? undefined : JSON.stringify(event.after))],
  ["hash", (event) => event.hash],
];

function cell(value: unknown): string {
  const text = value === undefined || value === null ? "" : String(value);
  // A leading formula character is defused for spreadsheets; quoted when needed.
  const safe = /^[=+\-@]/.test(text) && typeof value === "string" ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * Audit events as CSV with a header row.
 *
 * @example
 * auditCsv(await audit.query({ limit: 100 }));
 */
export function auditCsv(events: StoredAuditEvent[]): string {
  const lines = [
    CSV_COLUMNS.map(([name]) => name).join(","),
    ...events.map((event) => CSV_COLUMNS.map(([, read]) => cell(read(event))).join(",")),
  ];
  return `${lines.join("\r\n")}\r\n`;
}

/** Reading a large log may take a while; bounded all the same. */
const AUDIT_QUERY_DEADLINE_MS = 15_000;

/**
 * `GET /admin/audit?from=&to=&actor=&action=&target=&limit=` (`&format=csv`): the audit log,
 * newest first; a team-admin reads their team's entries only. There is no route that edits or
 * deletes an entry.
 */
export function auditRoute(audit: AuditSink, allowed: AllowedCheck): RouteDefinition {
  return defineRoute({
    method: "GET",
    path: "/admin/audit",
    absolute: true,
    summary: "The audit log of administrative acts, sign-ins and sign-outs (JSON or CSV); read-only",
    schema: { query: auditQuerySchema },
    handler: async (ctx) => {
      const scope = scopeOf(allowed(ctx, "audit.read"));
      const { from, to, actor, action, target, limit, format } = ctx.query;
      if (from && to && Date.parse(from) > Date.parse(to)) throw badRequest("from", "from must not be after to");
      const events = await storeCall(
        "audit-log",
        () =>
          audit.query({
            ...(from ? { from: new Date(from) } : {}),
            ...(to ? { to: new Date(to) } : {}),
            ...(actor ? { actor } : {}),
            ...(action ? { action } : {}),
            ...(target ? { target } : {}),
            ...(scope !== undefined ? { team: scope } : {}),
            limit,
          }),
        AUDIT_QUERY_DEADLINE_MS,
      );
      if (format === "csv") return rawResponse(auditCsv(events), { headers: { "content-type": "text/csv; charset=utf-8" } });
      return events;
    },
  });
}
