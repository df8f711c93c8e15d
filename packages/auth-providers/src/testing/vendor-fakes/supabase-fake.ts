import { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "../admin-api-fake.js";

export const SUPABASE_SERVICE_ROLE_KEY = "service-role-key-fake";

const notFound = { code: 404, error_code: "user_not_found", msg: "User not found" };

/**
 * Supabase Auth's admin API as its wire format has it: `GET/PUT /auth/v1/admin/users/{id}`,
 * `GET /auth/v1/admin/users?page=&per_page=&filter=` answering `{users, aud}`; the service role key
 * must come as `apikey` and bearer. `app_metadata` updates merge key by key (null removes).
 *
 * @example
 * const { fake, users } = await startSupabaseFake();
 */
export async function startSupabaseFake(): Promise<{ fake: AdminApiFake; users: Map<string, Record<string, unknown>> }> {
  const users = new Map<string, Record<string, unknown>>();
  const route = (request: ReceivedRequest): FakeAnswer | undefined => {
    if (request.headers.apikey !== SUPABASE_SERVICE_ROLE_KEY || request.headers.authorization !== `Bearer ${SUPABASE_SERVICE_ROLE_KEY}`)
      return { status: 401, json: { message: "Invalid API key" } };
    if (request.method === "GET" && request.path === "/auth/v1/admin/users") {
      const page = Number(request.query.get("page") ?? 1);
      const perPage = Number(request.query.get("per_page") ?? 50);
      const filter = (request.query.get("filter") ?? "").toLowerCase();
      const matching = [...users.values()].filter((user) => String(user.email).toLowerCase().includes(filter));
      return { json: { users: matching.slice((page - 1) * perPage, page * perPage), aud: "authenticated" } };
    }
    const match = /^\/auth\/v1\/admin\/users\/([^/]+)$/.exec(request.path);
    const user = match ? users.get(match[1] as string) : undefined;
    if (!user) return { status: 404, json: notFound };
    if (request.method === "PUT") {
      const patch = (request.body as { app_metadata?: Record<string, unknown> }).app_metadata ?? {};
      const merged: Record<string, unknown> = { ...(user.app_metadata as object) };
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      user.app_metadata = merged;
    }
    return { json: user };
  };
  return { fake: await startAdminApiFake(route, notFound), users };
}
