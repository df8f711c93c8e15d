import { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "../admin-api-fake.js";

export const CLERK_SECRET_KEY = "sk_test_conduit_fake";

const clerkError = (code: string, message: string) => ({ errors: [{ code, message, long_message: message }] });

/** Clerk's deep merge of a metadata patch: objects merge, null removes, anything else replaces. */
function deepMerge(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (typeof value === "object" && !Array.isArray(value) && typeof merged[key] === "object" && merged[key] !== null)
      merged[key] = deepMerge(merged[key] as Record<string, unknown>, value as Record<string, unknown>);
    else merged[key] = value;
  }
  return merged;
}

/**
 * Clerk's Backend API as its wire format has it: `GET /v1/users/{id}`, `GET /v1/users?email_address=`,
 * `PATCH /v1/users/{id}/metadata` (deep merge), errors as `{errors: [{code, message}]}`.
 *
 * @example
 * const { fake, users } = await startClerkFake();
 */
export async function startClerkFake(): Promise<{ fake: AdminApiFake; users: Map<string, Record<string, unknown>> }> {
  const users = new Map<string, Record<string, unknown>>();
  const route = (request: ReceivedRequest): FakeAnswer | undefined => {
    if (request.headers.authorization !== `Bearer ${CLERK_SECRET_KEY}`)
      return { status: 401, json: clerkError("authentication_invalid", "Unauthorized request") };
    if (request.method === "GET" && request.path === "/v1/users") {
      const wanted = request.query.getAll("email_address");
      return {
        json: [...users.values()].filter((user) =>
          (user.email_addresses as Array<{ email_address: string }>).some((address) => wanted.includes(address.email_address)),
        ),
      };
    }
    const match = /^\/v1\/users\/([^/]+)(\/metadata)?$/.exec(request.path);
    const user = match ? users.get(match[1] as string) : undefined;
    if (!match || !user) return { status: 404, json: clerkError("resource_not_found", "not found") };
    if (match[2] && request.method === "PATCH") {
      const patch = request.body as Record<string, Record<string, unknown>>;
      for (const field of ["public_metadata", "private_metadata", "unsafe_metadata"]) {
        if (patch[field]) user[field] = deepMerge(user[field] as Record<string, unknown>, patch[field]);
      }
    }
    return { json: user };
  };
  return { fake: await startAdminApiFake(route, clerkError("resource_not_found", "not found")), users };
}
