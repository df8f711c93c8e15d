import type { ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, stopProcess } from "./testing/demo-server.js";

// The demo with its README's api-key auth, virtual keys and an admin key: /admin and the console
// answer both the admin key alone and a user of the demo's auth with role admin.
const ADMIN_KEY = "demo-admin-surfaces-key-0123456789abcdef";
let child: ChildProcess;
let base: string;

beforeAll(async () => {
  const config = join(mkdtempSync(join(tmpdir(), "conduit-demo-admin-")), "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      auth: {
        type: "api-key",
        keys: { "demo-key-123": { id: "demo", roles: ["admin"], permissions: ["*"] }, "viewer-key-123": { id: "viewer", roles: ["user"] } },
      },
      keys: { store: "memory" },
      admin: { keys: [ADMIN_KEY] },
    }),
  );
  const started = await startDemoServer(["--config", config], { CONDUIT_ADMIN_KEY: "", REDIS_URL: "" });
  child = started.child;
  base = `http://127.0.0.1:${started.port}`;
}, 30_000);
afterAll(() => stopProcess(child));

describe("demo with auth, keys and admin", () => {
  it("/admin takes the admin key alone or a user with role admin, 403 for another user", async () => {
    const status = (headers: Record<string, string>) => fetch(`${base}/admin/keys`, { headers }).then((response) => response.status);
    expect(await status({ authorization: `Bearer ${ADMIN_KEY}` })).toBe(200);
    expect(await status({ "x-api-key": "demo-key-123" })).toBe(200);
    expect(await status({ "x-api-key": "viewer-key-123" })).toBe(403);
    expect(await status({})).toBe(401);
  });

  it("the console signs in a role-admin user and forwards the admin pages with their own key", async () => {
    const signIn = await fetch(`${base}/console/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
      body: JSON.stringify({ credential: "demo-key-123" }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect((await fetch(`${base}/console/api/admin/keys`, { headers: { cookie } })).status).toBe(200);
  });
});
