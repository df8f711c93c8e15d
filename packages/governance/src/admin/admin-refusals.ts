import { AuthorizationError, ServerAdapterError } from "@conduit-ai/server-core";
import type { AdminPrincipal } from "../roles/admin-roles.js";

/**
 * A 400 `VALIDATION_ERROR` naming the field, in the shape of the schema's own refusals.
 *
 * @example
 * if (from > to) throw badRequest("from", "from must not be after to");
 */
export function badRequest(field: string, message: string): ServerAdapterError {
  return new ServerAdapterError(message, {
    code: "VALIDATION_ERROR",
    statusCode: 400,
    category: "VALIDATION",
    details: { errors: [{ field, message }] },
  });
}

/** A 409 `CONFLICT`: the record exists, or still has what must go first. */
export function conflict(message: string): ServerAdapterError {
  return new ServerAdapterError(message, { code: "CONFLICT", statusCode: 409, category: "VALIDATION" });
}

/**
 * A 403 `ADMIN_ROLE_FORBIDDEN` for a team-admin asking for what only an organization-wide role
 * reads (a vendor's reports, usage grouped by user, model or day); `details` says what they may ask.
 *
 * @example
 * if (scopeOf(principal) !== undefined) throw teamAdminForbidden(principal, "A vendor's reports are the whole organization's");
 */
export function teamAdminForbidden(principal: AdminPrincipal, message: string, details: Record<string, unknown> = {}): AuthorizationError {
  return new AuthorizationError(message, { code: "ADMIN_ROLE_FORBIDDEN", details: { role: principal.role, ...details } });
}
