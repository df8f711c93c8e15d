import type { ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startDemoServer, stopProcess } from "./testing/demo-server.js";

function openSocket(url: string, headers: Record<string, string>): Promise<{ socket?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => resolve({ socket }));
    socket.once("unexpected-response", (_request, response) => resolve({ status: response.statusCode }));
    socket.once("error", () => resolve({}));
  });
}

describe("demo with a JWT provider, sessions and authorization rules from its config file", () => {
  let idp: IdentityServer;
  let base = "";
  let child: ChildProcess;

  beforeAll(async () => {
    idp = await startIdentityServer({ issuerPath: "/realms/demo" });
    const configFile = join(mkdtempSync(join(tmpdir(), "conduit-demo-providers-")), "config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        server: { rateLimit: { maxRequests: 1000 } },
        auth: {
          type: "keycloak",
          url: idp.origin,
          realm: "demo",
          clientId: "conduit-api",
          sessions: { store: "memory", ttlMs: 3_600_000, maxSessionsPerUser: 3 },
        },
        authorization: {
          hierarchy: { admin: ["operator"] },
          rolePermissions: { operator: ["tools:*"] },
          rules: [{ path: "/api/tools/*", methods: ["POST"], permissions: ["tools:execute"] }],
        },
      }),
    );
    const started = await startDemoServer(["--config", configFile]);
    child = started.child;
    base = `127.0.0.1:${started.port}`;
  });

  afterAll(async () => {
    await stopProcess(child);
    await idp.close();
  });

  const token = (roles: string[], extra: Record<string, unknown> = {}) =>
    idp.sign({ sub: `kc-${roles.join("-") || "none"}`, email: "kc@example.com", realm_access: { roles }, ...extra });

  it("refuses missing, expired and foreign tokens with 401 and accepts a realm token", async () => {
    expect((await fetch(`http://${base}/api/tools`)).status).toBe(401);
    const expired = await fetch(`http://${base}/api/tools`, {
      headers: { authorization: `Bearer ${await token(["viewer"], { exp: Math.floor(Date.now() / 1000) - 60 })}` },
    });
    expect(expired.status).toBe(401);
    expect((await expired.json()).error.code).toBe("TOKEN_EXPIRED");
    const foreign = await fetch(`http://${base}/api/tools`, {
      headers: { authorization: `Bearer ${await token(["viewer"], { iss: "https://elsewhere.example" })}` },
    });
    expect(foreign.status).toBe(401);
    expect((await fetch(`http://${base}/api/tools`, { headers: { authorization: `Bearer ${await token(["viewer"])}` } })).status).toBe(200);
    expect((await fetch(`http://${base}/health`)).status).toBe(200);
  });

  it("mounts the auth routes: me and sessions", async () => {
    const bearer = { authorization: `Bearer ${await token(["admin"], { sid: "browser-1" })}` };
    const me = await (await fetch(`http://${base}/api/auth/me`, { headers: bearer })).json();
    expect(me.data.user).toMatchObject({ id: "kc-admin", email: "kc@example.com", roles: ["admin", "operator"] });
    expect(me.data.user.permissions).toContain("tools:*");
    const sessions = await (await fetch(`http://${base}/api/auth/sessions`, { headers: bearer })).json();
    expect(sessions.data.sessions.map((session: { id: string }) => session.id)).toContain(me.data.session.id);
    const signOut = await fetch(`http://${base}/api/auth/sessions`, { method: "DELETE", headers: bearer });
    expect((await signOut.json()).data.destroyed).toBeGreaterThanOrEqual(1);
    expect((await fetch(`http://${base}/api/auth/me`, { headers: bearer })).status).toBe(401);
  });

  it("enforces the authorization rules with 403 FORBIDDEN", async () => {
    const execute = async (roles: string[]) =>
      fetch(`http://${base}/api/tools/calculator/execute`, {
        method: "POST",
        headers: { authorization: `Bearer ${await token(roles)}`, "content-type": "application/json" },
        body: JSON.stringify({ arguments: { expression: "6 * 7" } }),
      });
    const denied = await execute(["viewer"]);
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.code).toBe("FORBIDDEN");
    const allowed = await execute(["admin"]);
    expect(allowed.status).toBe(200);
    expect((await allowed.json()).data.result.value).toBe(42);
  });

  it("asks the WebSocket upgrade for the same provider tokens (fail closed)", async () => {
    expect((await openSocket(`ws://${base}/ws`, {})).status).toBe(401);
    expect((await openSocket(`ws://${base}/ws`, { authorization: "Bearer forged.token.value" })).status).toBe(401);
    const { socket } = await openSocket(`ws://${base}/ws`, { authorization: `Bearer ${await token(["viewer"])}` });
    expect(socket).toBeDefined();
    socket?.close();
  });
});
