import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mountConsole } from "@conduit-ai/console";
import { createAdminCheck } from "@conduit-ai/governance";
import { type ConduitProxy, createProxy } from "@conduit-ai/proxy";
import { afterAll, afterEach, expect, it } from "vitest";
import { forEachAdapter, type RunningServer } from "./harness.js";

// The console's Accounts page over a real proxy pool: Disable / Enable of an id the pool does
// not hold is a 404 naming it, never a 200 that changed nothing.
const ADMIN_KEY = "console-accounts-admin-key-0123456789abcdef";
const assets = mkdtempSync(join(tmpdir(), "conduit-console-accounts-"));
writeFileSync(join(assets, "index.html"), "<!doctype html><title>console</title>");
afterAll(() => rmSync(assets, { recursive: true, force: true }));
const proxies: ConduitProxy[] = [];
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
});

async function signedIn(server: RunningServer) {
  const origin = `http://127.0.0.1:${server.port}`;
  const response = await fetch(server.url("/console/api/session"), {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ credential: ADMIN_KEY }),
  });
  expect(response.status).toBe(200);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] as string;
  return (path: string) => fetch(server.url(`/console/api/accounts/${path}`), { method: "POST", headers: { cookie, origin } });
}

forEachAdapter("console account control", ({ start }) => {
  it("disabling or enabling an unknown account is 404 ACCOUNT_NOT_FOUND; a known one changes its status", async () => {
    const proxy = createProxy({
      enabled: true,
      clientKeys: ["console-accounts-client-key-0123"],
      accounts: [{ id: "claude-1", type: "api-key", apiKey: "sk-ant-console-accounts" }],
    });
    proxies.push(proxy);
    const server = await start({
      setup: (adapter) =>
        mountConsole(adapter, {
          checkAdmin: createAdminCheck({ keys: [ADMIN_KEY] }),
          adminKeys: [ADMIN_KEY],
          assetsDirectory: assets,
          accounts: {
            rows: () => proxy.pool.rows(),
            disable: (id) => proxy.pool.disable(id, "operator"),
            enable: (id) => proxy.pool.enable(id),
          },
        }),
    });
    const post = await signedIn(server);
    for (const action of ["disable", "enable"]) {
      const unknown = await post(`ghost/${action}`);
      expect(unknown.status, action).toBe(404);
      const body = (await unknown.json()) as { error: { code: string; message: string; requestId: string } };
      expect(body.error.code).toBe("ACCOUNT_NOT_FOUND");
      expect(body.error.message).toContain('"ghost"');
      expect(body.error.requestId).toBeTruthy();
    }
    expect((await proxy.pool.rows()).map((row) => row.id)).toEqual(["claude-1"]);
    const disabled = await post("claude-1/disable");
    expect(disabled.status).toBe(200);
    expect((await proxy.pool.rows())[0]?.status).toBe("disabled");
    expect((await post("claude-1/enable")).status).toBe(200);
    expect((await proxy.pool.rows())[0]?.status).toBe("active");
  });
});
