import { type Governance, createGovernance } from "@conduit-ai/governance";
import { createRuntime } from "@conduit-ai/runtime";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

// Roles on the admin API, enforced by the API itself: admin (everything), team-admin:<team> (that
// team's keys, usage and audit entries; another team's ids are 404), viewer (read-only, never a
// secret), auditor (usage and the audit log only). Admin keys carry their role in config.

const ADMIN = "admin-key-for-admin-roles-0123456789abcdefgh";
const VIEWER = "viewer-key-for-admin-roles-0123456789abcdefg";
const AUDITOR = "auditor-key-for-admin-roles-0123456789abcdef";
const ALPHA_ADMIN = "alpha-team-admin-key-for-roles-0123456789ab";

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would
type Json = Record<string, any>;

forEachAdapter("admin roles: what each role may do on /admin", ({ start }) => {
  let governance: Governance | undefined;
  afterEach(async () => {
    await governance?.close();
    governance = undefined;
  });

  async function serve(): Promise<RunningServer> {
    governance = await createGovernance({
      keys: { store: "memory" },
      admin: {
        keys: [ADMIN, { key: VIEWER, role: "viewer" }, { key: AUDITOR, role: "auditor" }, { key: ALPHA_ADMIN, role: "team-admin:alpha" }],
      },
      env: {},
    });
    return start({
      runtime: createRuntime({ env: {} }),
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        registerAllRoutes(adapter);
        governance?.install(adapter, { virtualKeyAuth: true });
      },
    });
  }

  const call = async (server: RunningServer, key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(server.url(path), {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, json: (text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : {}) as Json };
  };

  /** Two teams (alpha capped at rpm 100 and 10 USD a day), a key in each. */
  async function world(server: RunningServer) {
    const alphaTeam = await call(server, ADMIN, "POST", "/admin/teams", {
      id: "alpha",
      name: "Alpha",
      limits: { rpm: 100 },
      budgets: [{ usd: 10, window: "day" }],
    });
    expect(alphaTeam.status).toBe(201);
    expect((await call(server, ADMIN, "POST", "/admin/teams", { id: "beta", name: "Beta" })).status).toBe(201);
    const alpha = await call(server, ADMIN, "POST", "/admin/keys", { name: "alpha-key", team: "alpha" });
    const beta = await call(server, ADMIN, "POST", "/admin/keys", { name: "beta-key", team: "beta" });
    expect(alpha.status).toBe(201);
    return { alphaKey: alpha.json.data.id as string, betaKey: beta.json.data.id as string };
  }

  it("admin: every read and write; a bare admin key in config is an admin", async () => {
    const server = await serve();
    const { alphaKey, betaKey } = await world(server);
    expect((await call(server, ADMIN, "PATCH", `/admin/keys/${betaKey}`, { name: "renamed" })).status).toBe(200);
    expect((await call(server, ADMIN, "POST", `/admin/keys/${alphaKey}/rotate`, {})).json.data.key).toMatch(/^sk-conduit-/);
    expect((await call(server, ADMIN, "PATCH", "/admin/teams/beta", { name: "B" })).status).toBe(200);
    expect((await call(server, ADMIN, "DELETE", `/admin/keys/${betaKey}`)).status).toBe(200);
    expect((await call(server, ADMIN, "DELETE", "/admin/teams/beta")).status).toBe(200);
    for (const path of ["/admin/keys", "/admin/teams", "/admin/usage?groupBy=model", "/admin/audit"])
      expect((await call(server, ADMIN, "GET", path)).status, path).toBe(200);
  });

  it("viewer: reads keys, teams, usage and the audit log; every write is 403 ADMIN_ROLE_FORBIDDEN; no secret in any answer", async () => {
    const server = await serve();
    const { alphaKey } = await world(server);
    for (const path of ["/admin/keys", `/admin/keys/${alphaKey}`, "/admin/teams", "/admin/teams/alpha", "/admin/usage", "/admin/audit"]) {
      const answer = await call(server, VIEWER, "GET", path);
      expect(answer.status, path).toBe(200);
      expect(answer.text, path).not.toMatch(/sk-conduit-|"key":/);
    }
    const writes: Array<[string, string, unknown]> = [
      ["POST", "/admin/keys", { name: "nope" }],
      ["PATCH", `/admin/keys/${alphaKey}`, { name: "nope" }],
      ["POST", `/admin/keys/${alphaKey}/rotate`, {}],
      ["DELETE", `/admin/keys/${alphaKey}`, undefined],
      ["POST", "/admin/teams", { name: "nope" }],
      ["PATCH", "/admin/teams/alpha", { name: "nope" }],
      ["DELETE", "/admin/teams/alpha", undefined],
    ];
    for (const [method, path, body] of writes) {
      const answer = await call(server, VIEWER, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.json.error.code).toBe("ADMIN_ROLE_FORBIDDEN");
    }
    // Nothing changed.
    const keys = await call(server, ADMIN, "GET", "/admin/keys");
    expect(keys.json.data.map((key: Json) => key.name).sort()).toEqual(["alpha-key", "beta-key"]);
  });

  it("auditor: usage and the audit log only; keys and teams are 403", async () => {
    const server = await serve();
    await world(server);
    for (const path of ["/admin/usage?groupBy=team", "/admin/audit", "/admin/audit?format=csv"])
      expect((await call(server, AUDITOR, "GET", path)).status, path).toBe(200);
    for (const [method, path] of [
      ["GET", "/admin/keys"],
      ["GET", "/admin/teams"],
      ["POST", "/admin/keys"],
    ] as const) {
      const answer = await call(server, AUDITOR, method, path, method === "POST" ? { name: "x" } : undefined);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.json.error.code).toBe("ADMIN_ROLE_FORBIDDEN");
    }
  });

  it("team-admin:alpha: sees and manages alpha's keys only; beta's key id is a 404 exactly like an unknown id", async () => {
    const server = await serve();
    const { alphaKey, betaKey } = await world(server);
    const listed = await call(server, ALPHA_ADMIN, "GET", "/admin/keys");
    expect(listed.json.data.map((key: Json) => key.id)).toEqual([alphaKey]);
    const unknown = await call(server, ALPHA_ADMIN, "GET", "/admin/keys/key_doesnotexist");
    for (const [method, path, body] of [
      ["GET", `/admin/keys/${betaKey}`, undefined],
      ["PATCH", `/admin/keys/${betaKey}`, { name: "mine now" }],
      ["POST", `/admin/keys/${betaKey}/rotate`, {}],
      ["DELETE", `/admin/keys/${betaKey}`, undefined],
    ] as const) {
      const answer = await call(server, ALPHA_ADMIN, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json.error.code).toBe("KEY_NOT_FOUND");
      expect(answer.json.error.message).toBe(`Key "${betaKey}" not found`);
    }
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("KEY_NOT_FOUND");
    // Its own team's keys: create (in alpha whether named or not), change, rotate, revoke.
    const created = await call(server, ALPHA_ADMIN, "POST", "/admin/keys", { name: "by-team-admin", limits: { rpm: 50 } });
    expect(created.status).toBe(201);
    expect(created.json.data.team).toBe("alpha");
    expect(created.json.data.key).toMatch(/^sk-conduit-/);
    expect((await call(server, ALPHA_ADMIN, "POST", "/admin/keys", { name: "x", team: "beta" })).json.error.code).toBe("TEAM_NOT_FOUND");
    expect((await call(server, ALPHA_ADMIN, "PATCH", `/admin/keys/${alphaKey}`, { name: "alpha-renamed" })).status).toBe(200);
    expect((await call(server, ALPHA_ADMIN, "POST", `/admin/keys/${alphaKey}/rotate`, {})).status).toBe(200);
    // Limits and budgets up to the team's own.
    const beyond = await call(server, ALPHA_ADMIN, "POST", "/admin/keys", { name: "x", limits: { rpm: 101 } });
    expect(beyond.status).toBe(403);
    expect(beyond.json.error.code).toBe("BEYOND_TEAM_POLICY");
    const overBudget = await call(server, ALPHA_ADMIN, "PATCH", `/admin/keys/${alphaKey}`, { budgets: [{ usd: 11, window: "day" }] });
    expect(overBudget.json.error.code).toBe("BEYOND_TEAM_POLICY");
    expect((await call(server, ALPHA_ADMIN, "PATCH", `/admin/keys/${alphaKey}`, { budgets: [{ usd: 10, window: "day" }] })).status).toBe(
      200,
    );
    expect((await call(server, ALPHA_ADMIN, "DELETE", `/admin/keys/${created.json.data.id}`)).status).toBe(200);
    // Teams: its own, read-only; another's is a 404.
    expect((await call(server, ALPHA_ADMIN, "GET", "/admin/teams")).json.data.map((team: Json) => team.id)).toEqual(["alpha"]);
    expect((await call(server, ALPHA_ADMIN, "GET", "/admin/teams/alpha")).status).toBe(200);
    expect((await call(server, ALPHA_ADMIN, "GET", "/admin/teams/beta")).json.error.code).toBe("TEAM_NOT_FOUND");
    expect((await call(server, ALPHA_ADMIN, "PATCH", "/admin/teams/beta", { name: "x" })).status).toBe(404);
    expect((await call(server, ALPHA_ADMIN, "PATCH", "/admin/teams/alpha", { name: "x" })).status).toBe(403);
    expect((await call(server, ALPHA_ADMIN, "POST", "/admin/teams", { name: "x" })).status).toBe(403);
    // Usage by key or team, its own; the audit log, its team's entries.
    expect((await call(server, ALPHA_ADMIN, "GET", "/admin/usage?groupBy=key")).status).toBe(200);
    expect((await call(server, ALPHA_ADMIN, "GET", "/admin/usage?groupBy=model")).json.error.code).toBe("ADMIN_ROLE_FORBIDDEN");
    const audit = await call(server, ALPHA_ADMIN, "GET", "/admin/audit?limit=1000");
    expect(audit.json.data.length).toBeGreaterThan(0);
    expect(new Set(audit.json.data.map((event: Json) => event.team))).toEqual(new Set(["alpha"]));
    // beta's key is untouched.
    expect((await call(server, ADMIN, "GET", `/admin/keys/${betaKey}`)).json.data.name).toBe("beta-key");
  });

  it("every write leaves exactly one audit event naming its actor, role and target; refusals are recorded as denied", async () => {
    const server = await serve();
    const { alphaKey, betaKey } = await world(server);
    await call(server, ALPHA_ADMIN, "PATCH", `/admin/keys/${alphaKey}`, { name: "a2" });
    await call(server, ALPHA_ADMIN, "DELETE", `/admin/keys/${betaKey}`);
    await call(server, VIEWER, "POST", "/admin/keys", { name: "nope" });
    const events = (await call(server, AUDITOR, "GET", "/admin/audit")).json.data as Json[];
    const summary = events
      .map((event) => `${event.actor.kind}:${event.role} ${event.action} ${event.target.type}:${event.target.id} ${event.outcome}`)
      .reverse();
    expect(summary).toEqual([
      "admin-key:admin team.create team:alpha success",
      "admin-key:admin team.create team:beta success",
      `admin-key:admin key.create key:${alphaKey} success`,
      `admin-key:admin key.create key:${betaKey} success`,
      `admin-key:team-admin:alpha key.update key:${alphaKey} success`,
      `admin-key:team-admin:alpha key.revoke key:${betaKey} denied`,
      "admin-key:viewer key.create key: denied",
    ]);
    const update = events.find((event) => event.action === "key.update") as Json;
    expect(update.actor.id).toMatch(/^ak_[0-9a-f]{12}$/);
    expect(update.actor.hint).toBe(ALPHA_ADMIN.slice(-4));
    expect(update.before.name).toBe("alpha-key");
    expect(update.after.name).toBe("a2");
    expect(JSON.stringify(events)).not.toMatch(/sk-conduit-|"key":|admin-roles-0123/);
    // Filters and CSV.
    const filtered = await call(server, ADMIN, "GET", `/admin/audit?action=key.create&target=key:${alphaKey}`);
    expect(filtered.json.data).toHaveLength(1);
    const csv = await call(server, ADMIN, "GET", `/admin/audit?format=csv&actor=${update.actor.id}`);
    expect(csv.text.split("\r\n")[0]).toMatch(/^seq,id,time,actorKind,actorId/);
    expect(csv.text.trim().split("\r\n")).toHaveLength(3);
    // Entries are never editable through the API.
    for (const method of ["POST", "PATCH", "DELETE", "PUT"])
      expect((await call(server, ADMIN, method, "/admin/audit", method === "DELETE" ? undefined : {})).status, method).toBe(404);
  });
});
