import { afterEach, describe, expect, it } from "vitest";
import { killLeftovers, portOf, spawnConduit, writeConfig } from "./test-support/spawn-conduit.js";

// The admin surfaces of real `conduit serve` and `conduit proxy` processes: the admin key alone
// opens /admin and the console's admin pages; on serve, a user of the server's own auth with role
// admin does too (governance's README: both must work).
const ADMIN_KEY = "cli-admin-surfaces-key-0123456789abcdefgh";
const OPS_KEY = "cli-ops-api-key-0123456789";
const DEV_KEY = "cli-dev-api-key-0123456789";
const quiet = { HOST: "", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", CONDUIT_ADMIN_KEY: "" };

afterEach(killLeftovers);

async function consolePages(base: string, credential: string): Promise<number[]> {
  const signIn = await fetch(`${base}/console/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ credential }),
  });
  if (signIn.status !== 200) return [signIn.status];
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const statuses = [];
  for (const page of ["admin/keys", "admin/teams", "admin/usage?groupBy=day"])
    statuses.push((await fetch(`${base}/console/api/${page}`, { headers: { cookie } })).status);
  return statuses;
}

describe("the admin surfaces of conduit serve and conduit proxy", { timeout: 60_000 }, () => {
  it("serve with api-key auth, keys and admin.keys: the admin key alone and a role-admin user reach /admin and the console", async () => {
    const config = writeConfig({
      auth: { type: "api-key", keys: { [OPS_KEY]: { id: "ops", roles: ["admin"] }, [DEV_KEY]: { id: "dev", roles: ["user"] } } },
      keys: { store: "memory" },
      admin: { keys: [ADMIN_KEY] },
    });
    const run = spawnConduit(["serve", "--port", "0", "--host", "127.0.0.1", "--config", config], quiet);
    const base = `http://127.0.0.1:${portOf(await run.ready)}`;
    const admin = (headers: Record<string, string>) => fetch(`${base}/admin/keys`, { headers }).then((response) => response.status);
    expect(await admin({ authorization: `Bearer ${ADMIN_KEY}` })).toBe(200);
    expect(await admin({ "x-api-key": OPS_KEY })).toBe(200);
    expect(await admin({ "x-api-key": DEV_KEY })).toBe(403);
    expect(await admin({})).toBe(401);
    expect(await consolePages(base, ADMIN_KEY)).toEqual([200, 200, 200]);
    expect(await consolePages(base, OPS_KEY)).toEqual([200, 200, 200]);
    expect(await consolePages(base, DEV_KEY)).toEqual([401]);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("serve with auth and keys but no admin key: /admin is for users with role admin (no longer a 404)", async () => {
    const config = writeConfig({
      auth: { type: "api-key", keys: { [OPS_KEY]: { id: "ops", roles: ["admin"] }, [DEV_KEY]: { id: "dev", roles: ["user"] } } },
      keys: { store: "memory" },
    });
    const run = spawnConduit(["serve", "--port", "0", "--host", "127.0.0.1", "--config", config], quiet);
    const base = `http://127.0.0.1:${portOf(await run.ready)}`;
    expect((await fetch(`${base}/admin/keys`, { headers: { "x-api-key": OPS_KEY } })).status).toBe(200);
    expect((await fetch(`${base}/admin/keys`, { headers: { "x-api-key": DEV_KEY } })).status).toBe(403);
    expect(await consolePages(base, OPS_KEY)).toEqual([200, 200, 200]);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("proxy with keys and admin.keys: the admin key opens /admin and the console's admin pages", async () => {
    const config = writeConfig({
      proxy: { enabled: true, accounts: [{ id: "a", type: "api-key", apiKey: "sk-ant-admin-surfaces" }] },
      keys: { store: "memory" },
      admin: { keys: [ADMIN_KEY] },
    });
    const run = spawnConduit(["proxy", "--port", "0", "--host", "127.0.0.1", "--config", config], quiet, "Conduit proxy listening on ");
    const base = `http://127.0.0.1:${portOf(await run.ready)}`;
    expect((await fetch(`${base}/admin/keys`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(200);
    expect((await fetch(`${base}/admin/keys`)).status).toBe(401);
    expect(await consolePages(base, ADMIN_KEY)).toEqual([200, 200, 200]);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });
});
