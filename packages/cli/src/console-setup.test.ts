import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOidcSsoServer } from "@conduit-ai/auth-providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { readConfigFile } from "./config-file.js";
import { type AssembledServer, assembleServer } from "./server-assembly.js";
import { UsageError } from "./usage-error.js";

const ADMIN_KEY = "cli-console-admin-key-0123456789abcdefghij";

describe("the operator console in conduit serve (and the demo)", () => {
  let assembled: AssembledServer | undefined;
  afterEach(async () => {
    if (assembled?.server.getLifecycleState() === "running") await assembled.server.stop();
    await assembled?.close();
    assembled = undefined;
  });

  async function serve(file: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
    assembled = await assembleServer({ framework: "hono", server: { port: 0, host: "127.0.0.1", logging: { enabled: false } }, file }, env);
    await assembled.server.start();
    const port = assembled.server.getStatus().port as number;
    return (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}${path}`, init);
  }

  const signIn = (request: Awaited<ReturnType<typeof serve>>, credential: string) =>
    request("/console/api/session", {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
      body: JSON.stringify({ credential }),
    });

  it("is not mounted without an admin credential: /console is a 404 like any unknown path", async () => {
    const request = await serve({});
    expect((await request("/console/")).status).toBe(404);
    expect((await request("/console/api/session")).status).toBe(404);
  });

  it("is mounted with admin.keys: the page, the CSP, a sign-in with the key, a session lifetime from the config", async () => {
    const request = await serve({ admin: { keys: [ADMIN_KEY] }, console: { sessionTtlSeconds: 600 } });
    const page = await request("/console/");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect((await signIn(request, "wrong-key-wrong-key-wrong-key-wrong")).status).toBe(401);
    const signedIn = await signIn(request, ADMIN_KEY);
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("set-cookie")).toContain("Max-Age=600");
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const metrics = await request("/console/api/metrics", { headers: { cookie } });
    expect(metrics.status).toBe(200);
    expect(((await metrics.json()) as Array<{ name: string }>).map((metric) => metric.name)).toContain("conduit_http_requests_total");
    const health = await request("/console/api/health", { headers: { cookie } });
    expect(((await health.json()) as { data: { status: string } }).data.status).toBe("ok");
  });

  it("with the server's auth: a user with role admin signs in with their own key; the auth still guards everything else", async () => {
    const request = await serve({
      auth: {
        type: "api-key",
        keys: { "ops-key-0123456789": { id: "ops", roles: ["admin"] }, "dev-key-0123456789": { id: "dev", roles: ["user"] } },
      },
    });
    expect((await request("/console/")).status).toBe(200);
    expect((await signIn(request, "dev-key-0123456789")).status).toBe(401);
    expect((await signIn(request, "ops-key-0123456789")).status).toBe(200);
    expect((await request("/api/tools")).status).toBe(401);
    expect((await request("/api/tools", { headers: { "x-api-key": "dev-key-0123456789" } })).status).toBe(200);
  });

  it("takes the admin key from CONDUIT_ADMIN_KEY too", async () => {
    const request = await serve({}, { CONDUIT_ADMIN_KEY: ADMIN_KEY });
    expect((await request("/console/")).status).toBe(200);
    expect((await signIn(request, ADMIN_KEY)).status).toBe(200);
  });

  it("stays off with console.enabled false, and refuses a short admin key", async () => {
    const request = await serve({ admin: { keys: [ADMIN_KEY] }, console: { enabled: false } });
    expect((await request("/console/")).status).toBe(404);
    await expect(
      assembleServer({ framework: "hono", server: { port: 0, logging: { enabled: false } }, file: { admin: { keys: ["short"] } } }),
    ).rejects.toBeInstanceOf(UsageError);
  });

  it("console.sso names an auth.providers entry: a Sign in with <name> on the sign-in, a 302 to the provider; auth.providers guards no route", async () => {
    const op = await startOidcSsoServer({ alice: { name: "Alice", email: "a@example.com", groups: ["ops"] } });
    await op.configure({ redirectUris: ["http://127.0.0.1:9/console/api/sso/callback"] });
    try {
      const request = await serve({
        admin: { keys: [ADMIN_KEY] },
        auth: { providers: { corp: { type: "oidc", issuer: op.issuer, clientId: op.client.id, clientSecret: op.client.secret } } },
        console: { sso: { provider: "corp", rolesClaim: "groups", roleMap: { ops: "admin" } } },
      });
      const session = (await (await request("/console/api/session")).json()) as { data: unknown };
      expect(session.data).toEqual({ signedIn: false, sso: { name: "corp" } });
      const started = await request("/console/api/sso/start", { redirect: "manual" });
      expect(started.status).toBe(302);
      expect(started.headers.get("location")).toMatch(new RegExp(`^${op.issuer}/auth\\?`));
      // The providers are the console's: the API needs no credential they would check.
      expect((await request("/api/tools")).status).toBe(200);
    } finally {
      await op.close();
    }
  });

  it("refuses a console.sso that names no provider, a role the admin API does not know, and an admin key with a bad role", async () => {
    const base = { admin: { keys: [ADMIN_KEY] } };
    const providers = { corp: { type: "oidc", issuer: "https://login.example.com", clientId: "console" } };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [
        { ...base, console: { sso: { provider: "corp", roleMap: { ops: "admin" } } } },
        /console\.sso\.provider "corp" names no auth\.providers entry/,
      ],
      [{ ...base, auth: { providers }, console: { sso: { provider: "corp", roleMap: { ops: "owner" } } } }, /console\.sso\.roleMap\.ops/],
      [
        {
          ...base,
          auth: { providers: { corp: { type: "oidc", issuer: "not a url" } } },
          console: { sso: { provider: "corp", roleMap: { a: "admin" } } },
        },
        /auth\.providers\.corp\.issuer, auth\.providers\.corp\.clientId/,
      ],
      [{ ...base, auth: { providers: { corp: { issuer: "https://x.example.com" } } } }, /auth\.providers\.corp/],
      [{ admin: { keys: [{ key: ADMIN_KEY, role: "superuser" }] } }, /admin\.keys\.0\.role: expected "admin" \| "viewer"/],
    ];
    for (const [file, message] of cases) {
      const path = join(mkdtempSync(join(tmpdir(), "conduit-sso-config-")), "conduit.json");
      writeFileSync(path, JSON.stringify(file));
      expect(() => readConfigFile(path, "serve"), JSON.stringify(file)).toThrow(message);
    }
  });

  it("admin.keys with a role: a viewer key signs in to the console as a viewer", async () => {
    const viewer = "cli-console-viewer-key-0123456789abcdefghij";
    const request = await serve({ admin: { keys: [ADMIN_KEY, { key: viewer, role: "viewer" }] } });
    const signedIn = await signIn(request, viewer);
    expect(signedIn.status).toBe(200);
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const session = (await (await request("/console/api/session", { headers: { cookie } })).json()) as { data: { role: string } };
    expect(session.data.role).toBe("viewer");
  });
});
