import { mountConsole } from "@conduit-ai/console";
import { type Governance, createAdminCheck, createGovernance } from "@conduit-ai/governance";
import { createRuntime } from "@conduit-ai/runtime";
import { type ServerAdapterConfig, registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter, rawRequest } from "./harness.js";

// The admin surface refuses what it could never store or serve back: invalid Unicode, ids no URL
// reaches, cross-site reads and form posts.

const ADMIN_KEY = "admin-key-for-admin-surfaces-0123456789abcdef";
const asAdmin = { authorization: `Bearer ${ADMIN_KEY}` };

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would
type Json = Record<string, any>;

forEachAdapter("admin surfaces: what /admin accepts", ({ start }) => {
  let governance: Governance | undefined;
  afterEach(async () => {
    await governance?.close();
    governance = undefined;
  });

  async function serve(config: ServerAdapterConfig = {}): Promise<RunningServer> {
    governance = await createGovernance({ keys: { store: "memory" }, admin: { keys: [ADMIN_KEY] }, env: {} });
    return start({
      runtime: createRuntime({ env: {} }),
      config: { rateLimit: { enabled: false }, ...config },
      setup: (adapter) => {
        registerAllRoutes(adapter);
        governance?.install(adapter, { virtualKeyAuth: true });
      },
    });
  }

  /** The body as JSON text: `JSON.stringify` writes a lone surrogate as the escape `\ud800`, as a client would send it. */
  const send = async (server: RunningServer, method: string, path: string, body: unknown) => {
    const response = await fetch(server.url(path), {
      method,
      headers: { ...asAdmin, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };

  it("400 naming the field for a lone UTF-16 surrogate in a key's name, user, models or metadata, a team's name", async () => {
    const server = await serve();
    const cases: Array<[string, string, unknown, string]> = [
      ["POST", "/admin/keys", { name: "team\ud800" }, "body.name"],
      ["POST", "/admin/keys", { name: "ok", user: "\udc00ana" }, "body.user"],
      ["POST", "/admin/keys", { name: "ok", models: ["echo", "gpt\ud83d"] }, "body.models.1"],
      ["POST", "/admin/keys", { name: "ok", metadata: { owner: { email: "a\ud800@example.com" } } }, "body.metadata.owner.email"],
      ["POST", "/admin/keys", { name: "ok", metadata: { list: ["fine", "\udfff"] } }, "body.metadata.list.1"],
      ["POST", "/admin/keys", { name: "ok", metadata: { "k\ud800": 1 } }, "body.metadata"],
      ["POST", "/admin/teams", { name: "team\ud800" }, "body.name"],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await send(server, method, path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error.code).toBe("VALIDATION_ERROR");
      expect(answer.json.error.details.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ field, message: expect.stringContaining("Unicode") })]),
      );
    }
    const team = await send(server, "POST", "/admin/teams", { id: "ops", name: "Ops" });
    expect(team.status).toBe(201);
    const patched = await send(server, "PATCH", "/admin/teams/ops", { name: "x\ud800" });
    expect(patched.status).toBe(400);
    expect(patched.json.error.details.errors[0].field).toBe("body.name");
    const key = await send(server, "POST", "/admin/keys", { name: "ok" });
    const patchedKey = await send(server, "PATCH", `/admin/keys/${key.json.data.id}`, { metadata: { note: "\ud800" } });
    expect(patchedKey.status).toBe(400);
    // Well-formed text outside the BMP (a surrogate pair) is fine.
    const emoji = await send(server, "POST", "/admin/keys", { name: "team 🚀", metadata: { tag: "✓ 🚀" } });
    expect(emoji.status).toBe(201);
    expect(emoji.json.data.name).toBe("team 🚀");
    // Nothing ill-formed was stored.
    const listed = await fetch(server.url("/admin/teams"), { headers: asAdmin });
    expect(((await listed.json()) as Json).data.map((record: Json) => record.name)).toEqual(["Ops"]);
  });

  it("refuses the team ids '.' and '..' (no URL can name them) with a 400 naming id", async () => {
    const server = await serve();
    for (const id of [".", ".."]) {
      const answer = await send(server, "POST", "/admin/teams", { id, name: "dots" });
      expect(answer.status).toBe(400);
      expect(answer.json.error.details.errors[0].field).toBe("body.id");
    }
    const key = await send(server, "POST", "/admin/keys", { name: "k", team: ".." });
    expect(key.status).toBe(400);
    expect((await send(server, "POST", "/admin/teams", { id: "a.b", name: "dots inside" })).status).toBe(201);
    const raw = await rawRequest(server.port, { path: "/admin/teams/a.b", headers: asAdmin });
    expect(raw.status).toBe(200);
  });

  it("no CORS on /admin (no preflight answer, no Access-Control-* header) while /api keeps the configured CORS", async () => {
    const server = await serve({ cors: { enabled: true, origins: "*" } });
    const origin = { origin: "https://elsewhere.example" };
    const preflight = await fetch(server.url("/admin/keys"), {
      method: "OPTIONS",
      headers: { ...origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(preflight.headers.get("access-control-allow-methods")).toBeNull();
    const read = await fetch(server.url("/admin/keys"), { headers: { ...origin, ...asAdmin } });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    const refused = await fetch(server.url("/admin/keys"), { headers: origin });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    // The rest of the server is unchanged.
    const health = await fetch(server.url("/api/health"), { headers: origin });
    expect(health.headers.get("access-control-allow-origin")).toBe("*");
    const apiPreflight = await fetch(server.url("/api/agent/generate"), {
      method: "OPTIONS",
      headers: { ...origin, "access-control-request-method": "POST" },
    });
    expect(apiPreflight.status).toBe(204);
    expect(apiPreflight.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("/admin takes JSON bodies only: a form or text/plain body is 415 and creates nothing", async () => {
    const server = await serve();
    for (const [contentType, body] of [
      ["application/x-www-form-urlencoded", "name=from-a-form"],
      ["text/plain", JSON.stringify({ name: "from-text-plain" })],
      ["multipart/form-data; boundary=x", '--x\r\ncontent-disposition: form-data; name="name"\r\n\r\nm\r\n--x--\r\n'],
    ]) {
      const answer = await fetch(server.url("/admin/keys"), {
        method: "POST",
        headers: { ...asAdmin, "content-type": contentType as string },
        body: body as string,
      });
      expect(answer.status, contentType).toBe(415);
      expect(((await answer.json()) as Json).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
    const noType = await rawRequest(server.port, {
      method: "POST",
      path: "/admin/teams",
      headers: { ...asAdmin, "content-length": "14" },
      body: '{"name":"raw"}',
    });
    expect(noType.status).toBe(415);
    expect(((await (await fetch(server.url("/admin/keys"), { headers: asAdmin })).json()) as Json).data).toEqual([]);
    // JSON (with a charset) and body-less writes still work.
    const json = await fetch(server.url("/admin/keys"), {
      method: "POST",
      headers: { ...asAdmin, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ name: "json" }),
    });
    expect(json.status).toBe(201);
    const id = ((await json.json()) as Json).data.id;
    expect((await fetch(server.url(`/admin/keys/${id}/rotate`), { method: "POST", headers: asAdmin })).status).toBe(200);
    expect((await fetch(server.url(`/admin/keys/${id}`), { method: "DELETE", headers: asAdmin })).status).toBe(200);
  });
});

forEachAdapter("admin surfaces: X-Forwarded-Host and -Proto count only from a trusted proxy", ({ start }) => {
  const withConsole = (adapter: Parameters<typeof mountConsole>[0]) =>
    mountConsole(adapter, { checkAdmin: createAdminCheck({ keys: [ADMIN_KEY] }), adminKeys: [ADMIN_KEY] });
  const forged = { origin: "https://evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
  const signIn = (server: RunningServer, headers: Record<string, string>) =>
    fetch(server.url("/console/api/session"), {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ credential: ADMIN_KEY }),
    });

  it("trustProxy off (the default): a forged Origin/X-Forwarded-Host pair is a cross-site write; no Secure cookie, no HSTS", async () => {
    const server = await start({ setup: withConsole });
    const crossSite = await signIn(server, forged);
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as Json).error.code).toBe("CROSS_SITE_REQUEST");
    expect(crossSite.headers.get("strict-transport-security")).toBeNull();
    const plain = await signIn(server, { origin: `http://127.0.0.1:${server.port}`, "x-forwarded-proto": "https" });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("set-cookie")).not.toContain("Secure");
    expect(plain.headers.get("strict-transport-security")).toBeNull();
  });

  it("trustProxy on (the loopback peer is the proxy): the forwarded host and scheme are the request's own", async () => {
    const server = await start({ setup: withConsole, config: { trustProxy: "loopback" } });
    const viaProxy = await signIn(server, { ...forged, origin: "https://console.example", "x-forwarded-host": "console.example" });
    expect(viaProxy.status).toBe(200);
    expect(viaProxy.headers.get("set-cookie")).toContain("; Secure");
    expect(viaProxy.headers.get("strict-transport-security")).toBe("max-age=31536000");
  });
});
