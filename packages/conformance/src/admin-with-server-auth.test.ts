import { type AssembledServer, assembleServer } from "@conduit-ai/cli";
import { afterEach, describe, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// A server with its own auth (api-key, bearer, basic) beside virtual keys and an admin key, as
// `conduit serve` and the demo assemble it: both kinds of operator reach /admin and the console —
// the admin key alone, or a user of the server's auth with role admin — and nobody else does.
const ADMIN_KEY = "server-auth-admin-key-0123456789abcdefgh";

interface Variant {
  auth: Record<string, unknown>;
  /** A credential as typed into the console's sign-in. */
  ops: string;
  dev: string;
  /** The credential as the server's auth reads it on a request. */
  present(credential: string): Record<string, string>;
}

const VARIANTS: Record<string, Variant> = {
  "api-key": {
    auth: {
      type: "api-key",
      keys: { "ops-api-key-0123456789": { id: "ops", roles: ["admin"] }, "dev-api-key-0123456789": { id: "dev", roles: ["user"] } },
    },
    ops: "ops-api-key-0123456789",
    dev: "dev-api-key-0123456789",
    present: (credential) => ({ "x-api-key": credential }),
  },
  bearer: {
    auth: {
      type: "bearer",
      tokens: { "ops-token-0123456789": { id: "ops", roles: ["admin"] }, "dev-token-0123456789": { id: "dev", roles: ["user"] } },
    },
    ops: "ops-token-0123456789",
    dev: "dev-token-0123456789",
    present: (credential) => ({ authorization: `Bearer ${credential}` }),
  },
  basic: {
    auth: {
      type: "basic",
      users: { ops: { password: "ops-password-0123", roles: ["admin"] }, dev: { password: "dev-password-0123", roles: ["user"] } },
    },
    ops: "ops:ops-password-0123",
    dev: "dev:dev-password-0123",
    present: (credential) => ({ authorization: `Basic ${Buffer.from(credential).toString("base64")}` }),
  },
};

forEachAdapter("the admin surfaces on a server with its own auth", ({ framework }) => {
  let assembled: AssembledServer | undefined;
  afterEach(async () => {
    if (assembled?.server.getLifecycleState() === "running") await assembled.server.stop();
    await assembled?.close();
    assembled = undefined;
  });

  async function serve(variant: Variant) {
    assembled = await assembleServer(
      {
        framework,
        server: { port: 0, host: "127.0.0.1", logging: { enabled: false } },
        file: { auth: variant.auth, keys: { store: "memory" }, admin: { keys: [ADMIN_KEY] } },
      },
      {},
    );
    // The application's own page under /admin/: not the admin API, so the admin key does not open it.
    assembled.server.registerRoute({ method: "GET", path: "/admin/own-page", absolute: true, handler: (ctx) => ({ user: ctx.user?.id }) });
    await assembled.server.start();
    const base = `http://127.0.0.1:${assembled.server.address()?.port}`;
    return (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);
  }

  describe.each(Object.entries(VARIANTS))("%s", (_name, variant) => {
    it("/admin: the admin key alone, or a user with role admin; 403 for another user, 401 for nobody; the key opens nothing else", async () => {
      const request = await serve(variant);
      const bearerAdmin = { authorization: `Bearer ${ADMIN_KEY}` };
      const keys = await request("/admin/keys", { headers: bearerAdmin });
      expect(keys.status).toBe(200);
      expect(((await keys.json()) as { data: unknown[] }).data).toEqual([]);
      expect((await request("/admin/keys", { headers: variant.present(variant.ops) })).status).toBe(200);
      const created = await request("/admin/keys", {
        method: "POST",
        headers: { ...variant.present(variant.ops), "content-type": "application/json" },
        body: JSON.stringify({ name: "made-by-ops" }),
      });
      expect(created.status).toBe(201);
      const forbidden = await request("/admin/keys", { headers: variant.present(variant.dev) });
      expect(forbidden.status).toBe(403);
      expect(((await forbidden.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");
      for (const headers of [{}, { authorization: `Bearer ${ADMIN_KEY}x` }, variant.present("nobody-0123456789:x")]) {
        const refused = await request("/admin/keys", { headers });
        expect(refused.status, JSON.stringify(headers)).toBe(401);
        expect(((await refused.json()) as { error: { requestId: string } }).error.requestId).toBeTruthy();
      }
      // The admin key passes the server's auth on the admin API only: /api and the application's
      // own routes under /admin/ still ask for the server's credential.
      expect((await request("/api/tools", { headers: bearerAdmin })).status).toBe(401);
      expect((await request("/admin/own-page", { headers: bearerAdmin })).status).toBe(401);
      expect((await request("/admin/own-page", { headers: variant.present(variant.dev) })).status).toBe(200);
      expect((await request("/api/tools", { headers: variant.present(variant.dev) })).status).toBe(200);
    });

    it("a wrong credential refused by the server's auth on /admin meets the admin limiter (429), and the admin key still works", async () => {
      const request = await serve(variant);
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let attempt = 0; attempt < 12 && limited === undefined; attempt += 1) {
        const answer = await request("/admin/keys", { headers: { authorization: `Bearer ${ADMIN_KEY}-guess` } });
        statuses.push(answer.status);
        if (answer.status === 429) limited = answer;
      }
      expect(statuses[0]).toBe(401);
      if (limited === undefined) throw new Error(`never limited: ${statuses.join(",")}`);
      expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("TOO_MANY_FAILED_CREDENTIALS");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await request("/admin/keys", { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(200);
    });

    it("the console: an admin key or a role-admin user signs in and every admin page answers; another user cannot sign in", async () => {
      const request = await serve(variant);
      const signIn = (credential: string) =>
        request("/console/api/session", {
          method: "POST",
          headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
          body: JSON.stringify({ credential }),
        });
      expect((await signIn(variant.dev)).status).toBe(401);
      for (const credential of [ADMIN_KEY, variant.ops]) {
        const signedIn = await signIn(credential);
        expect(signedIn.status, credential).toBe(200);
        const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
        for (const page of ["admin/keys", "admin/teams", "admin/usage?groupBy=day"]) {
          const answer = await request(`/console/api/${page}`, { headers: { cookie } });
          expect(answer.status, `${credential} ${page}`).toBe(200);
        }
        const created = await request("/console/api/admin/keys", {
          method: "POST",
          headers: { cookie, "content-type": "application/json", "sec-fetch-site": "same-origin" },
          body: JSON.stringify({ name: `console-${credential.slice(0, 3)}` }),
        });
        expect(created.status).toBe(201);
      }
    });
  });
});
