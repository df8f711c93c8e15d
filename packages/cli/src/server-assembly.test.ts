import { startMcpHttpFixture } from "@conduit-ai/fakes";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type AssembledServer, assembleServer } from "./server-assembly.js";

/** Resolves with the upgrade's outcome: "open", or the HTTP status it was refused with. */
function upgrade(port: number, headers: Record<string, string>): Promise<"open" | number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers });
    socket.once("open", () => {
      socket.close();
      resolve("open");
    });
    socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    socket.once("error", () => resolve(0));
  });
}

describe("assembleServer: one credential rule for HTTP and the WebSocket upgrade", () => {
  let assembled: AssembledServer | undefined;
  afterEach(async () => {
    if (assembled?.server.getLifecycleState() === "running") await assembled.server.stop();
    await assembled?.close();
    assembled = undefined;
  });

  const configs = {
    "api-key on a custom header": {
      auth: { type: "api-key", headerName: "x-custom-key", keys: { "key-123": { id: "k" } } },
      good: { "x-custom-key": "key-123" },
      wrongHeader: { "x-api-key": "key-123" },
    },
    "bearer on a custom header (bare token)": {
      auth: { type: "bearer", headerName: "x-access-token", tokens: { "tok-123": { id: "t" } } },
      good: { "x-access-token": "tok-123" },
      wrongHeader: { authorization: "Bearer tok-123" },
    },
    "basic on Authorization": {
      auth: { type: "basic", users: { ops: { password: "pw" } } },
      good: { authorization: `Basic ${Buffer.from("ops:pw").toString("base64")}` },
      wrongHeader: { "x-api-key": "ops:pw" },
    },
  } as const;

  for (const [name, { auth, good, wrongHeader }] of Object.entries(configs)) {
    it(`${name}: the upgrade accepts exactly what HTTP accepts`, async () => {
      assembled = await assembleServer({
        framework: "hono",
        server: { port: 0, host: "127.0.0.1", logging: { enabled: false } },
        file: { auth },
      });
      await assembled.server.start();
      const port = assembled.server.getStatus().port as number;
      const http = async (headers: Record<string, string>) => (await fetch(`http://127.0.0.1:${port}/api/tools`, { headers })).status;
      expect(await http(good)).toBe(200);
      expect(await upgrade(port, good)).toBe("open");
      expect(await http(wrongHeader)).toBe(401);
      expect(await upgrade(port, wrongHeader)).toBe(401);
      expect(await upgrade(port, {})).toBe(401);
    });
  }
});

describe("assembleServer: the config's guardrails on /api/agent/*", () => {
  it("masks a prompt before the runtime and blocks a secret with 400 guardrail_violation", async () => {
    const assembled = await assembleServer({
      framework: "hono",
      server: { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false } },
      file: {
        guardrails: {
          rules: [
            { name: "pii", kind: "pii", on: "request", action: "mask" },
            { name: "no-secrets", kind: "secrets", on: "both", action: "block" },
          ],
          default: ["pii", "no-secrets"],
        },
      },
    });
    try {
      await assembled.server.start();
      const port = assembled.server.getStatus().port as number;
      const generate = (text: string) =>
        fetch(`http://127.0.0.1:${port}/api/agent/generate`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: { text } }),
        });
      // The local runtime's model answers with the prompt it received.
      const masked = await generate("write to ada@example.com");
      expect(masked.status).toBe(200);
      const answer = await masked.text();
      expect(answer).toContain("[EMAIL]");
      expect(answer).not.toContain("ada@example.com");
      const blocked = await generate("use AKIAIOSFODNN7EXAMPLE");
      expect(blocked.status).toBe(400);
      expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe("guardrail_violation");
    } finally {
      if (assembled.server.getLifecycleState() === "running") await assembled.server.stop();
      await assembled.close();
    }
  });
});

describe("assembleServer: the config's guardrails on the MCP gateway's tool calls", () => {
  it("masks an email in a tool's arguments and blocks a secret before it goes upstream", async () => {
    const upstream = await startMcpHttpFixture({ name: "web" });
    const clientKey = "mcp-client-key-for-the-assembly-test";
    const assembled = await assembleServer({
      framework: "hono",
      server: { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false } },
      file: {
        mcpServers: { web: { url: upstream.url } },
        mcpGateway: { enabled: true, clientKeys: [clientKey] },
        guardrails: {
          rules: [
            { name: "pii", kind: "pii", on: "request", action: "mask" },
            { name: "no-secrets", kind: "secrets", on: "request", action: "block" },
          ],
          default: ["pii", "no-secrets"],
        },
      },
    });
    try {
      await assembled.server.start();
      const url = `http://127.0.0.1:${assembled.server.getStatus().port as number}/mcp`;
      let sessionId = "";
      const rpc = async (message: Record<string, unknown>) => {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${clientKey}`,
            "mcp-protocol-version": "2025-06-18",
            ...(sessionId ? { "mcp-session-id": sessionId } : {}),
          },
          body: JSON.stringify({ jsonrpc: "2.0", ...message }),
        });
        sessionId = response.headers.get("mcp-session-id") ?? sessionId;
        const text = await response.text();
        const data = text.startsWith("{")
          ? text
          : (text
              .split("\n")
              .find((line) => line.startsWith("data: "))
              ?.slice(6) ?? "{}");
        return JSON.parse(data) as { result?: { content: Array<{ text: string }> }; error?: { code: number; message: string } };
      };
      const capabilities = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } };
      await rpc({ id: 1, method: "initialize", params: capabilities });
      await rpc({ method: "notifications/initialized" });
      const masked = await rpc({ id: 2, method: "tools/call", params: { name: "web__echo", arguments: { text: "to ada@example.com" } } });
      expect(masked.result?.content[0]?.text).toBe("to [EMAIL]");
      const blocked = await rpc({
        id: 3,
        method: "tools/call",
        params: { name: "web__echo", arguments: { text: "AKIAIOSFODNN7EXAMPLE" } },
      });
      expect(blocked.error?.code).toBe(-32602);
      expect(blocked.error?.message).toContain("no-secrets");
      expect(blocked.error?.message).not.toContain("AKIAIOSFODNN7EXAMPLE");
    } finally {
      if (assembled.server.getLifecycleState() === "running") await assembled.server.stop();
      await assembled.close();
      await upstream.close();
    }
  });
});
