import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOidcSignIn } from "@conduit-ai/auth-providers";
import { type OidcSsoServer, startOidcSsoServer } from "@conduit-ai/auth-providers/testing";
import { mountConsole } from "@conduit-ai/console";
import { type Governance, createGovernance } from "@conduit-ai/governance";
import { createRuntime } from "@conduit-ai/runtime";
import { CredentialFailureGuard } from "@conduit-ai/server-core/internal";
import { afterAll, afterEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

// Single sign-on for the console through a real OpenID Provider (oidc-provider): the code flow
// with PKCE, state and nonce; groups mapped to roles; the admin API enforcing those roles on the
// console's forwards; an unmapped user refused with a page saying so; failed callbacks counted in
// the failed-sign-in limiter; sign-out offering the provider's end-session endpoint.

const ADMIN_KEY = "console-sso-admin-key-0123456789abcdefghij";
const assets = mkdtempSync(join(tmpdir(), "conduit-console-sso-"));
writeFileSync(join(assets, "index.html"), "<!doctype html><title>console</title>");
afterAll(() => rmSync(assets, { recursive: true, force: true }));

const USERS = {
  alice: { name: "Alice", email: "alice@example.com", groups: ["platform", "everyone"] },
  bob: { name: "Bob", email: "bob@example.com", groups: ["team-alpha", "everyone"] },
  vera: { name: "Vera", email: "vera@example.com", groups: ["readers"] },
  eve: { name: "Eve", email: "eve@example.com", groups: ["marketing"] },
};
const ROLE_MAP = { platform: "admin", "team-alpha": "team-admin:alpha", readers: "viewer", compliance: "auditor" };

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would
type Json = Record<string, any>;

forEachAdapter("console single sign-on", ({ start }) => {
  let governance: Governance | undefined;
  let op: OidcSsoServer | undefined;
  afterEach(async () => {
    await governance?.close();
    await op?.close();
    governance = undefined;
    op = undefined;
  });

  async function serve(failures = new CredentialFailureGuard()): Promise<{ server: RunningServer; op: OidcSsoServer; origin: string }> {
    op = await startOidcSsoServer(USERS);
    const provider = op;
    governance = await createGovernance({ keys: { store: "memory" }, admin: { keys: [ADMIN_KEY] }, env: {} });
    const owned = governance;
    const server = await start({
      runtime: createRuntime({ env: {} }),
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        owned.install(adapter);
        mountConsole(adapter, {
          checkAdmin: owned.checkAdmin,
          adminKeys: [ADMIN_KEY],
          assetsDirectory: assets,
          audit: owned.audit,
          credentialFailures: failures,
          sso: {
            name: "corp",
            client: createOidcSignIn({ issuer: provider.issuer, clientId: provider.client.id, clientSecret: provider.client.secret }),
            rolesClaim: "groups",
            roleMap: ROLE_MAP,
          },
        });
      },
    });
    const origin = `http://127.0.0.1:${server.port}`;
    await op.configure({ redirectUris: [`${origin}/console/api/sso/callback`], postLogoutRedirectUris: [`${origin}/console/`] });
    return { server, op, origin };
  }

  const cookieOf = (response: Response, name: string) => response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`)) ?? "";

  /** The whole browser journey: start, the provider's login, the callback with the binding cookie. */
  async function signInAs(server: RunningServer, provider: OidcSsoServer, login: string) {
    const started = await fetch(server.url("/console/api/sso/start"), { redirect: "manual" });
    const binding = cookieOf(started, "conduit_console_sso").split(";")[0] as string;
    const back = await provider.signInAs(started.headers.get("location") as string, login);
    const callback = await fetch(back, { redirect: "manual", headers: { cookie: binding } });
    const session = cookieOf(callback, "conduit_console");
    return { started, callback, session, cookie: session.split(";")[0] as string };
  }

  const api = (server: RunningServer, origin: string, cookie: string) => async (method: string, path: string, body?: unknown) => {
    const response = await fetch(server.url(`/console/api${path}`), {
      method,
      headers: { cookie, origin, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: (text.startsWith("{") ? JSON.parse(text) : {}) as Json, text };
  };

  it("start: 302 to the provider with code, PKCE S256, state, nonce and our callback; a Lax binding cookie for the callback only", async () => {
    const { server, op: provider, origin } = await serve();
    const signedOut = await fetch(server.url("/console/api/session"));
    expect(((await signedOut.json()) as Json).data).toEqual({ signedIn: false, sso: { name: "corp" } });
    const started = await fetch(server.url("/console/api/sso/start"), { redirect: "manual" });
    expect(started.status).toBe(302);
    const location = new URL(started.headers.get("location") as string);
    expect(location.origin).toBe(provider.issuer);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      response_type: "code",
      client_id: provider.client.id,
      redirect_uri: `${origin}/console/api/sso/callback`,
      code_challenge_method: "S256",
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const binding = cookieOf(started, "conduit_console_sso");
    expect(binding).toContain("HttpOnly");
    expect(binding).toContain("SameSite=Lax");
    expect(binding).toContain("Path=/console/api/sso");
  });

  it("the callback signs in with the usual Strict session cookie and the role the groups map to", async () => {
    const { server, op: provider, origin } = await serve();
    const alice = await signInAs(server, provider, "alice");
    expect(alice.callback.status).toBe(302);
    expect(alice.callback.headers.get("location")).toBe("/console/");
    expect(alice.session).toMatch(/^conduit_console=[A-Za-z0-9_-]{43}; Path=\/console; Max-Age=\d+; HttpOnly; SameSite=Strict/);
    const session = await api(server, origin, alice.cookie)("GET", "/session");
    expect(session.json.data).toMatchObject({
      signedIn: true,
      role: "admin",
      provider: "corp",
      actor: { kind: "user", id: "alice", hint: "alice@example.com" },
    });
    expect(session.json.data.permissions).toContain("keys.write");
    const vera = await api(server, origin, (await signInAs(server, provider, "vera")).cookie)("GET", "/session");
    expect(vera.json.data.role).toBe("viewer");
    expect(vera.json.data.permissions).not.toContain("keys.write");
    const bob = await api(server, origin, (await signInAs(server, provider, "bob")).cookie)("GET", "/session");
    expect(bob.json.data.role).toBe("team-admin:alpha");
  });

  it("the admin API enforces the signed-in role: a team-admin manages only their team (another's key is 404), a viewer cannot write (403)", async () => {
    const { server, op: provider, origin } = await serve();
    const admin = api(server, origin, (await signInAs(server, provider, "alice")).cookie);
    expect((await admin("POST", "/admin/teams", { id: "alpha", name: "Alpha" })).status).toBe(201);
    expect((await admin("POST", "/admin/teams", { id: "beta", name: "Beta" })).status).toBe(201);
    const betaKey = (await admin("POST", "/admin/keys", { name: "beta-key", team: "beta" })).json.data.id;
    const bob = api(server, origin, (await signInAs(server, provider, "bob")).cookie);
    const created = await bob("POST", "/admin/keys", { name: "bob-key" });
    expect(created.status).toBe(201);
    expect(created.json.data.team).toBe("alpha");
    expect((await bob("GET", "/admin/keys")).json.data.map((key: Json) => key.name)).toEqual(["bob-key"]);
    for (const [method, path] of [
      ["GET", `/admin/keys/${betaKey}`],
      ["DELETE", `/admin/keys/${betaKey}`],
    ] as const)
      expect((await bob(method, path)).status, `${method} ${path}`).toBe(404);
    const vera = api(server, origin, (await signInAs(server, provider, "vera")).cookie);
    expect((await vera("GET", "/admin/keys")).status).toBe(200);
    const refused = await vera("POST", "/admin/keys", { name: "nope" });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe("ADMIN_ROLE_FORBIDDEN");
    // The console's own routes sit behind one guard: a viewer reads its pages but controls no account; nobody signed in gets 401.
    expect((await vera("GET", "/health")).status).toBe(200);
    const control = await vera("POST", "/accounts/any-account/disable");
    expect(control.status).toBe(403);
    expect(control.json.error.code).toBe("ADMIN_ROLE_FORBIDDEN");
    for (const path of ["/health", "/metrics", "/accounts", "/live", "/admin/keys"])
      expect((await api(server, origin, "")("GET", path)).status, path).toBe(401);
    // The audit log names the single sign-on user, not the console.
    const events = (await admin("GET", "/admin/audit?action=key.create")).json.data as Json[];
    expect(events.map((event) => `${event.actor.id}:${event.role}:${event.outcome}`).sort()).toEqual([
      "alice:admin:success",
      "bob:team-admin:alpha:success",
      "vera:viewer:denied",
    ]);
  });

  it("an unmapped user is refused with a page that says so, gets no session, and the refusal is audited", async () => {
    const { server, op: provider, origin } = await serve();
    const eve = await signInAs(server, provider, "eve");
    expect(eve.callback.status).toBe(403);
    expect(eve.callback.headers.get("content-type")).toContain("text/html");
    const page = await eve.callback.text();
    expect(page).toContain("No console role for this account");
    expect(page).toContain("eve@example.com");
    expect(eve.session).toBe("");
    const admin = api(server, origin, (await signInAs(server, provider, "alice")).cookie);
    const signIns = (await admin("GET", "/admin/audit?action=console.signin")).json.data as Json[];
    expect(signIns.map((event) => `${event.actor.id}:${event.outcome}`).reverse()).toEqual(["eve:failure", "alice:success"]);
  });

  it("a callback without its binding cookie, a replayed one or an unknown state is refused, and failed callbacks meet the limiter", async () => {
    const { server, op: provider } = await serve(new CredentialFailureGuard({ maxFailuresPerAddress: 3 }));
    const started = await fetch(server.url("/console/api/sso/start"), { redirect: "manual" });
    const binding = cookieOf(started, "conduit_console_sso").split(";")[0] as string;
    const back = await provider.signInAs(started.headers.get("location") as string, "alice");
    const stolen = await fetch(back, { redirect: "manual" });
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain("started in another browser");
    // Its pending record is spent: the rightful browser cannot finish it either.
    expect((await fetch(back, { redirect: "manual", headers: { cookie: binding } })).status).toBe(400);
    expect((await fetch(server.url("/console/api/sso/callback?code=x&state=unknown"), { redirect: "manual" })).status).toBe(400);
    const locked = await fetch(server.url("/console/api/sso/callback?code=x&state=another"), { redirect: "manual" });
    expect(locked.status).toBe(429);
    expect(await locked.text()).toContain("Too many failed sign-ins");
  });

  it("sign-out ends the session and offers the provider's end-session endpoint", async () => {
    const { server, op: provider, origin } = await serve();
    const alice = await signInAs(server, provider, "alice");
    const call = api(server, origin, alice.cookie);
    const signedOut = await call("DELETE", "/session");
    expect(signedOut.status).toBe(200);
    const endSession = new URL(signedOut.json.data.endSessionUrl);
    expect(endSession.origin).toBe(provider.issuer);
    expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(`${origin}/console/`);
    expect((await call("GET", "/admin/keys")).status).toBe(401);
    expect((await call("GET", "/session")).json.data.signedIn).toBe(false);
  });
});
