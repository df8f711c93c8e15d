import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { CLIENT_KEY } from "@conduit-ai/proxy/testing";
import { attachWebSocket } from "@conduit-ai/websocket";
import { createRuntime } from "@conduit-ai/runtime";
import { afterAll, expect, it } from "vitest";
import WebSocket from "ws";
import { forEachAdapter } from "./harness.js";

// Codex starts at once: its WebSocket attempt on the Responses paths is
// refused with 426 Upgrade Required — the status codex-rs takes as "use HTTP" for the session
// without retries — at once, never hanging; and `HEAD` on the base URLs (Claude Code's
// connectivity check on ANTHROPIC_BASE_URL) answers 204 without a body.
const runtime = createRuntime({ env: {} });
afterAll(() => runtime.close());

/** The handshake's answer: the HTTP status of a refused upgrade (or 101), and how long it took. */
function handshake(url: string): Promise<{ status: number; body: string; elapsedMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      headers: { authorization: `Bearer ${CLIENT_KEY}`, "openai-beta": "responses_websockets=2026-02-06" },
    });
    socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        socket.terminate();
        resolve({ status: response.statusCode ?? 0, body, elapsedMs: performance.now() - started });
      });
    });
    socket.once("open", () => {
      socket.close();
      resolve({ status: 101, body: "", elapsedMs: performance.now() - started });
    });
    socket.once("error", reject);
  });
}

forEachAdapter("proxy client probes", ({ start }) => {
  async function serve(options: { webSocket?: boolean } = {}) {
    const proxy = createProxy(
      {
        enabled: true,
        clientKeys: [CLIENT_KEY],
        accounts: [{ id: "codex", vendor: "codex", type: "api-key", apiKey: "token", accountId: "acct" }],
      },
      { chatCompletions: chatCompletionsFor(runtime) },
    );
    const server = await start({
      setup: (adapter) => {
        registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true });
        adapter.registerRouteGroup(proxy.createCodexRoutes());
        // `conduit serve` attaches the WebSocket surface: upgrades on other paths must still reach the routes.
        if (options.webSocket) attachWebSocket(adapter, { runtime });
      },
    });
    return { server, close: () => proxy.close() };
  }

  it("refuses the Responses WebSocket with 426 at once, on the codex route and under /v1", async () => {
    const { server, close } = await serve();
    try {
      for (const path of ["/backend-api/codex/responses", "/v1/responses"]) {
        const answer = await handshake(server.url(path).replace("http:", "ws:"));
        expect(answer.status, path).toBe(426);
        expect(answer.elapsedMs, path).toBeLessThan(2_000);
        expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "upgrade_required" } });
      }
      // HTTP POST on the same paths is what the client does next (here: refused for the missing body, not 404).
      const post = await fetch(server.url("/v1/responses"), { method: "POST", headers: { authorization: `Bearer ${CLIENT_KEY}` } });
      expect(post.status).toBe(400);
    } finally {
      await close();
    }
  });

  it("refuses it the same way when the server's own WebSocket surface is attached", async () => {
    const { server, close } = await serve({ webSocket: true });
    try {
      for (const path of ["/backend-api/codex/responses", "/v1/responses"]) {
        const answer = await handshake(server.url(path).replace("http:", "ws:"));
        expect(answer.status, path).toBe(426);
        expect(answer.elapsedMs, path).toBeLessThan(2_000);
      }
      // Unknown paths keep their 404, in the path's vendor shape.
      const unknown = await handshake(server.url("/v1/nowhere").replace("http:", "ws:"));
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.body)).toMatchObject({ error: { type: "invalid_request_error" } });
    } finally {
      await close();
    }
  });

  it("answers HEAD on the base URLs with 204 and no body, at once", async () => {
    const { server, close } = await serve();
    try {
      for (const path of ["/", "/v1"]) {
        const started = performance.now();
        const head = await fetch(server.url(path), { method: "HEAD" });
        expect(head.status, path).toBe(204);
        expect(await head.text(), path).toBe("");
        expect(performance.now() - started, path).toBeLessThan(2_000);
      }
    } finally {
      await close();
    }
  });
});
