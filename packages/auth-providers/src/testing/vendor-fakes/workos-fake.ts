import { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "../admin-api-fake.js";

export const WORKOS_API_KEY = "sk_test_workos_fake";

export interface WorkOSFakeState {
  users: Map<string, Record<string, unknown>>;
  memberships: Array<Record<string, unknown>>;
}

const list = (data: unknown[]) => ({ object: "list", data, list_metadata: { before: null, after: null } });

/**
 * WorkOS User Management as its wire format has it: `GET/PUT /user_management/users/{id}`,
 * `GET /user_management/users?email=`, `GET /user_management/organization_memberships?user_id=&organization_id=`
 * and `PUT /user_management/organization_memberships/{id}` (`role_slug` or `role_slugs`), lists as `{data, list_metadata}`.
 *
 * @example
 * const { fake, state } = await startWorkOSFake();
 */
export async function startWorkOSFake(): Promise<{ fake: AdminApiFake; state: WorkOSFakeState }> {
  const state: WorkOSFakeState = { users: new Map(), memberships: [] };
  const notFound = (id: string) => ({
    status: 404,
    json: { code: "entity_not_found", entity_id: id, message: `User not found: '${id}'.` },
  });
  const route = (request: ReceivedRequest): FakeAnswer | undefined => {
    if (request.headers.authorization !== `Bearer ${WORKOS_API_KEY}`) return { status: 401, json: { message: "Unauthorized" } };
    if (request.method === "GET" && request.path === "/user_management/users") {
      return { json: list([...state.users.values()].filter((user) => user.email === request.query.get("email"))) };
    }
    if (request.method === "GET" && request.path === "/user_management/organization_memberships") {
      const organization = request.query.get("organization_id");
      const statuses = request.query.get("statuses")?.split(",");
      return {
        json: list(
          state.memberships.filter(
            (membership) =>
              membership.user_id === request.query.get("user_id") &&
              (!organization || membership.organization_id === organization) &&
              (!statuses || statuses.includes(String(membership.status))),
          ),
        ),
      };
    }
    const membership = /^\/user_management\/organization_memberships\/([^/]+)$/.exec(request.path);
    if (membership && request.method === "PUT") {
      const found = state.memberships.find((entry) => entry.id === membership[1]);
      if (!found) return { status: 404, json: { code: "entity_not_found", message: "Organization membership not found." } };
      const body = request.body as { role_slug?: string; role_slugs?: string[] };
      if (body.role_slug && body.role_slugs) return { status: 422, json: { code: "invalid_request_parameters", message: "exclusive" } };
      const slugs = body.role_slugs ?? [body.role_slug as string];
      found.role = { slug: slugs[0] };
      found.roles = slugs.map((slug) => ({ slug }));
      return { json: found };
    }
    const match = /^\/user_management\/users\/([^/]+)$/.exec(request.path);
    const user = match ? state.users.get(match[1] as string) : undefined;
    if (!match || !user) return notFound(match?.[1] ?? "");
    if (request.method === "PUT") {
      const body = request.body as { metadata?: Record<string, string> };
      if (body.metadata && Object.values(body.metadata).some((value) => typeof value !== "string"))
        return { status: 422, json: { code: "invalid_request_parameters", message: "metadata values must be strings" } };
      if (body.metadata) user.metadata = body.metadata;
    }
    return { json: user };
  };
  return { fake: await startAdminApiFake(route), state };
}
