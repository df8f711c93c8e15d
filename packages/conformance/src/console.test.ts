import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONSOLE_CONTENT_SECURITY_POLICY, mountConsole } from "@conduit-ai/console";
import { createAdminCheck } from "@conduit-ai/governance";
import type { BaseServerAdapter } from "@conduit-ai/server-core";
import { afterAll, expect, it } from "vitest";
import { forEachAdapter, rawRequest, type RunningServer } from "./harness.js";

// The console's HTTP-visible contract on every adapter: no admin credential → no
// console; pages and assets from the static route; sign-in cookie attributes; CSP; cross-site writes refused.
const ADMIN_KEY = "console-admin-key-for-the-conformance-suite-0123456789";
const assets = mkdtempSync(join(tmpdir(), "conduit-console-assets-"));
mkdirSync(join(assets, "assets"));
writeFileSync(
  join(assets, "index.html"),
  '<!doctype html><title>console</title><script type="module" src="./assets/app-Ab12Cd34.js"></script>',
);
writeFileSync(join(assets, "assets", "app-Ab12Cd34.js"), "export const app = 1;");
writeFileSync(join(assets, "assets", "app-Ab12Cd34.css"), "body{margin:0}");
afterAll(() => rmSync(assets, { recursive: true, force: true }));

const withConsole = (adapter: BaseServerAdapter<unknown>) => {
  // A stand-in for the governance admin API: it answers only a Bearer admin key, as governance's admin API does (packages/governance/README.md).
  adapter.registerRoute({
    method: "GET",
    path: "/admin/keys",
    absolute: true,
    handler: (ctx) => {
      if (ctx.header("authorization") !== `Bearer ${ADMIN_KEY}`) throw Object.assign(new Error("no"), { statusCode: 401 });
      return [{ id: "key_1", name: "ci", hint: "abcd" }];
    },
  });
  mountConsole(adapter, { checkAdmin: createAdminCheck({ keys: [ADMIN_KEY] }), adminKeys: [ADMIN_KEY], assetsDirectory: assets });
};

const sameOrigin = (server: RunningServer) => ({ origin: `http://127.0.0.1:${server.port}`, "content-type": "application/json" });

async function signIn(server: RunningServer): Promise<string> {
  const response = await fetch(server.url("/console/api/session"), {
    method: "POST",
    headers: { ...sameOrigin(server), "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ credential: ADMIN_KEY }),
  });
  expect(response.status).toBe(200);
  return (response.headers.get("set-cookie") ?? "").split(";")[0] as string;
}

forEachAdapter("operator console", ({ start }) => {
  it("is a 404 like any unknown path when no admin credential mounted it", async () => {
    const server = await start();
    for (const path of ["/console", "/console/", "/console/api/session", "/console/assets/app-Ab12Cd34.js"]) {
      const response = await fetch(server.url(path));
      const unknown = await fetch(server.url("/no-such-path"));
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        ((await unknown.json()) as { error: { code: string } }).error.code,
      );
    }
  });

  it("serves the pages and hashed assets with content types, caching and the strict CSP; nothing outside the folder", async () => {
    const server = await start({ setup: withConsole });
    const bare = await fetch(server.url("/console"), { redirect: "manual" });
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("console/");
    const page = await fetch(server.url("/console/"));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    const script = await fetch(server.url("/console/assets/app-Ab12Cd34.js"));
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(script.headers.get("content-security-policy")).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(await script.text()).toBe("export const app = 1;");
    const style = await fetch(server.url("/console/assets/app-Ab12Cd34.css"));
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8");
    for (const path of [
      "/console/../package.json",
      "/console/assets/..%2F..%2Findex.html",
      "/console/%2e%2e/%2e%2e/etc/passwd",
      "/console/nope.js",
    ]) {
      const response = await rawRequest(server.port, { path });
      expect(response.status, path).toBe(404);
    }
  });

  it("signs in with the admin credential: an HttpOnly, SameSite=Strict session cookie (Secure over HTTPS), 8 hours", async () => {
    // The loopback peer stands for the TLS-terminating proxy: X-Forwarded-Proto is believed from it only.
    const server = await start({ setup: withConsole, config: { trustProxy: "loopback" } });
    const wrong = await fetch(server.url("/console/api/session"), {
      method: "POST",
      headers: { ...sameOrigin(server) },
      body: JSON.stringify({ credential: `${ADMIN_KEY}x` }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const plain = await fetch(server.url("/console/api/session"), {
      method: "POST",
      headers: { ...sameOrigin(server) },
      body: JSON.stringify({ credential: ADMIN_KEY }),
    });
    expect(plain.status).toBe(200);
    const cookie = plain.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^conduit_console=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/console");
    expect(cookie).toContain("Max-Age=28800");
    expect(cookie).not.toContain("Secure");
    expect(cookie).not.toContain(ADMIN_KEY);
    const secure = await fetch(server.url("/console/api/session"), {
      method: "POST",
      headers: { "content-type": "application/json", origin: `https://127.0.0.1:${server.port}`, "x-forwarded-proto": "https" },
      body: JSON.stringify({ credential: ADMIN_KEY }),
    });
    expect(secure.headers.get("set-cookie")).toContain("; Secure");
  });

  it("refuses every page's data signed out, serves it signed in, and forgets the session on sign-out", async () => {
    const server = await start({ setup: withConsole });
    const anonymous = await fetch(server.url("/console/api/session"));
    expect(((await anonymous.json()) as { data: { signedIn: boolean } }).data.signedIn).toBe(false);
    for (const path of ["metrics", "health", "admin/keys", "admin/usage?groupBy=day", "live", "accounts"]) {
      const response = await fetch(server.url(`/console/api/${path}`));
      expect(response.status, path).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("CONSOLE_SIGN_IN_REQUIRED");
    }
    const forged = await fetch(server.url("/console/api/admin/keys"), { headers: { cookie: `conduit_console=${"A".repeat(43)}` } });
    expect(forged.status).toBe(401);
    const cookie = await signIn(server);
    const keys = await fetch(server.url("/console/api/admin/keys"), { headers: { cookie } });
    expect(keys.status).toBe(200);
    expect(((await keys.json()) as { data: Array<{ id: string }> }).data[0]?.id).toBe("key_1");
    const session = await fetch(server.url("/console/api/session"), { headers: { cookie } });
    expect(((await session.json()) as { data: { signedIn: boolean } }).data.signedIn).toBe(true);
    const signOut = await fetch(server.url("/console/api/session"), { method: "DELETE", headers: { cookie, ...sameOrigin(server) } });
    expect(signOut.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await fetch(server.url("/console/api/admin/keys"), { headers: { cookie } })).status).toBe(401);
    const after = await fetch(server.url("/console/api/session"), { headers: { cookie } });
    expect(((await after.json()) as { data: { signedIn: boolean } }).data.signedIn).toBe(false);
  });

  it("refuses writes that come cross-site (Sec-Fetch-Site, Origin, or neither) with 403", async () => {
    const server = await start({ setup: withConsole });
    const cookie = await signIn(server);
    const body = JSON.stringify({ credential: ADMIN_KEY });
    for (const headers of <Array<Record<string, string>>>[
      { "sec-fetch-site": "cross-site", origin: `http://127.0.0.1:${server.port}` },
      { "sec-fetch-site": "same-site" },
      { origin: "https://evil.example" },
      { origin: "null" },
      {},
    ]) {
      const response = await fetch(server.url("/console/api/session"), {
        method: "POST",
        headers: { "content-type": "application/json", cookie, ...headers },
        body,
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("CROSS_SITE_REQUEST");
      expect(response.headers.get("set-cookie")).toBeNull();
    }
    const revoke = await fetch(server.url("/console/api/admin/keys/key_1"), {
      method: "DELETE",
      headers: { cookie, origin: "https://evil.example" },
    });
    expect(revoke.status).toBe(403);
  });
});
