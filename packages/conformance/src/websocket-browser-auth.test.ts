import { setupAuth } from "@conduit-ai/cli";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { attachWebSocket } from "@conduit-ai/websocket";
import { afterAll, beforeAll, expect, it } from "vitest";
import WebSocket from "ws";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { type RunningServer, forEachAdapter } from "./harness.js";

let idp: IdentityServer;
beforeAll(async () => {
  idp = await startIdentityServer();
});
afterAll(() => idp.close());

/** The upgrade's outcome: the user id the `connected` message names, or the HTTP status of the refusal. */
function upgrade(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<string | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}${path}`, { headers });
    socket.once("message", (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload: { userId?: string } };
      socket.close();
      resolve(message.payload.userId ?? "anonymous");
    });
    socket.once("unexpected-response", (_request, response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    socket.once("error", reject);
  });
}

/** `GET /api/auth/me` → the user id, or the status of the refusal. */
async function me(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<string | number> {
  const response = await fetch(server.url(`/api/auth/me${path}`), { headers });
  if (response.status !== 200) {
    await response.body?.cancel();
    return response.status;
  }
  return ((await response.json()) as { data: { user: { id: string } } }).data.user.id;
}

/** The config file's `auth` section assembled as `conduit serve` does, on the adapter under test. */
async function assembled(start: (options: object) => Promise<RunningServer>, auth: Record<string, unknown>) {
  const setup = await setupAuth({ auth }, {});
  const server = await start({
    runtime: createContractRuntime(),
    config: { rateLimit: { enabled: false } },
    setup: (adapter: Parameters<typeof attachWebSocket>[0]) => {
      for (const middleware of setup.middleware) adapter.registerMiddleware(middleware);
      if (setup.routes) adapter.registerRouteGroup(setup.routes);
      attachWebSocket(adapter, { runtime: createContractRuntime(), auth: setup.webSocket });
    },
  });
  return { server, close: () => setup.close() };
}

forEachAdapter("one credential rule for HTTP and the /ws upgrade", ({ start }) => {
  it("a provider's queryParam and cookieName open /ws wherever they open /api/auth/me", async () => {
    const { server, close } = await assembled(start as never, {
      type: "jwt",
      jwksUrl: idp.jwksUrl,
      queryParam: "access_token",
      cookieName: "conduit_token",
      sessions: false,
    });
    try {
      const token = await idp.sign({ sub: "browser-user" });
      const query = `?access_token=${encodeURIComponent(token)}`;
      expect(await me(server, query)).toBe("browser-user");
      expect(await upgrade(server, `/ws${query}`)).toBe("browser-user");
      const cookie = { cookie: `theme=dark; conduit_token=${token}` };
      expect(await me(server, "", cookie)).toBe("browser-user");
      expect(await upgrade(server, "/ws", cookie)).toBe("browser-user");
      expect(await me(server, "", { authorization: `Bearer ${token}` })).toBe("browser-user");
      expect(await upgrade(server, "/ws", { authorization: `Bearer ${token}` })).toBe("browser-user");
      // Refused alike: no credential, a bad one, a parameter the config does not name.
      expect(await me(server, "")).toBe(401);
      expect(await upgrade(server, "/ws")).toBe(401);
      expect(await me(server, "?access_token=nope")).toBe(401);
      expect(await upgrade(server, "/ws?access_token=nope")).toBe(401);
      expect(await me(server, `?token=${token}`)).toBe(401);
      expect(await upgrade(server, `/ws?token=${token}`)).toBe(401);
      // A malformed header is not silently replaced by the query parameter, on either surface.
      expect(await me(server, query, { authorization: "Bearer" })).toBe(401);
      expect(await upgrade(server, `/ws${query}`, { authorization: "Bearer" })).toBe(401);
    } finally {
      await close();
    }
  });

  it("a static bearer config's queryParam opens /ws as it opens /api", async () => {
    const { server, close } = await assembled(start as never, {
      type: "bearer",
      queryParam: "access_token",
      tokens: { "static-token-1": { id: "static-user" } },
    });
    try {
      expect(await me(server, "?access_token=static-token-1")).toBe("static-user");
      expect(await upgrade(server, "/ws?access_token=static-token-1")).toBe("static-user");
      expect(await upgrade(server, "/ws?access_token=other")).toBe(401);
      expect(await upgrade(server, "/ws")).toBe(401);
    } finally {
      await close();
    }
  });

  it("while the identity provider cannot be reached, /ws answers 503 AUTH_PROVIDER_UNAVAILABLE as /api does, not 401", async () => {
    const outage = await startIdentityServer();
    const token = await outage.sign({ sub: "u1" });
    const { server, close } = await assembled(start as never, {
      type: "jwt",
      jwksUrl: outage.jwksUrl,
      queryParam: "access_token",
      sessions: false,
    });
    try {
      outage.failWith(503);
      expect(await me(server, `?access_token=${token}`)).toBe(503);
      expect(await upgrade(server, `/ws?access_token=${token}`)).toBe(503);
      outage.failWith(undefined);
      expect(await upgrade(server, `/ws?access_token=${token}`)).toBe("u1");
    } finally {
      await close();
      await outage.close();
    }
  });
});
