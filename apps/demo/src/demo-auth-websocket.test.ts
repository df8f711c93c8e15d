import type { ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startDemoServer, stopProcess } from "./testing/demo-server.js";

const configFile = join(mkdtempSync(join(tmpdir(), "conduit-demo-auth-")), "config.json");
writeFileSync(
  configFile,
  JSON.stringify({
    server: { rateLimit: { maxRequests: 1000 } },
    auth: { type: "api-key", keys: { "demo-key-123": { id: "demo", roles: ["admin"], permissions: ["*"] } } },
  }),
);

function openSocket(url: string, headers: Record<string, string>): Promise<{ socket?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => resolve({ socket }));
    socket.once("unexpected-response", (_request, response) => resolve({ status: response.statusCode }));
    socket.once("error", () => resolve({}));
  });
}

function nextMessage(socket: WebSocket, type: string): Promise<{ type: string; id?: string; payload: Record<string, unknown> }> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(data.toString());
      if (message.type !== type) return;
      socket.off("message", onMessage);
      resolve(message);
    };
    socket.on("message", onMessage);
  });
}

describe("demo with config-file auth", () => {
  let base = "";
  let child: ChildProcess;

  beforeAll(async () => {
    const started = await startDemoServer(["--config", configFile]);
    child = started.child;
    base = `127.0.0.1:${started.port}`;
  });

  afterAll(async () => {
    await stopProcess(child);
  });

  it("refuses HTTP without the key, accepts it with the key, keeps health public", async () => {
    const refused = await fetch(`http://${base}/api/tools`);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe("AUTH_REQUIRED");
    const wrong = await fetch(`http://${base}/api/tools`, { headers: { "x-api-key": "nope" } });
    expect(wrong.status).toBe(401);
    const ok = await fetch(`http://${base}/api/tools`, { headers: { "x-api-key": "demo-key-123" } });
    expect(ok.status).toBe(200);
    expect((await fetch(`http://${base}/health`)).status).toBe(200);
    expect((await fetch(`http://${base}/api/health`)).status).toBe(200);
  });

  it("refuses the WebSocket upgrade without the key and serves generate with it", async () => {
    expect((await openSocket(`ws://${base}/ws`, {})).status).toBe(401);
    const { socket } = await openSocket(`ws://${base}/ws`, { "x-api-key": "demo-key-123" });
    if (!socket) throw new Error("upgrade refused");
    const result = nextMessage(socket, "result");
    socket.send(JSON.stringify({ type: "generate", id: "g1", payload: { input: { text: "hello" } } }));
    const message = await result;
    expect(message.id).toBe("g1");
    expect(message.payload).toMatchObject({ provider: "local" });
    socket.close();
  });
});
