import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type BaseAuthProvider,
  createJwtProvider,
  createOAuth2Provider,
  createProviderAuthMiddleware,
  monitorAuthProvider,
} from "@conduit-ai/auth-providers";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import type { BaseServerAdapter, Logger } from "@conduit-ai/server-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

let idp: IdentityServer;
let hanging: Server;
let hangingUrl: string;
beforeAll(async () => {
  idp = await startIdentityServer();
  // Accepts and never answers: an identity provider that hangs.
  hanging = createServer(() => undefined);
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
});
afterAll(async () => {
  hanging.closeAllConnections();
  await new Promise((resolve) => hanging.close(resolve));
  await idp.close();
});

/** A loopback address nobody listens on: connections are refused. */
async function refusedOrigin(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

function recordingLogger(): Logger & { warnings: Array<{ object: Record<string, unknown>; message?: string }> } {
  const warnings: Array<{ object: Record<string, unknown>; message?: string }> = [];
  const none = () => undefined;
  return {
    warnings,
    debug: none,
    info: none,
    error: none,
    warn: (object, message) => warnings.push({ object: object as Record<string, unknown>, ...(message ? { message } : {}) }),
  };
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

async function expectUnavailable(server: RunningServer, token: string) {
  const response = await fetch(server.url("/api/whoami"), bearer(token));
  const text = await response.text();
  expect(response.status, text).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  expect(response.headers.get("www-authenticate")).toBeNull();
  expect(JSON.parse(text).error).toMatchObject({ code: "AUTH_PROVIDER_UNAVAILABLE", category: "EXTERNAL", retryAfter: 5 });
  // Neither the token nor the identity provider's address reaches the client.
  expect(text).not.toContain(token);
  expect(text).not.toContain("127.0.0.1");
}

function serve(start: (options: object) => Promise<RunningServer>, provider: BaseAuthProvider, timeoutMs?: number) {
  return start({
    // The gauge is scraped anonymously: public only by the operator's choice (metrics-access.test.ts).
    config: { rateLimit: { enabled: false }, enableMetrics: true, metrics: { public: true } },
    setup: (adapter: BaseServerAdapter<unknown>) => {
      adapter.registerMiddleware(
        createProviderAuthMiddleware(provider, { skipPaths: ["/ready", "/metrics"], ...(timeoutMs ? { timeoutMs } : {}) }),
      );
      adapter.registerRoute({ method: "GET", path: "/whoami", handler: (ctx) => ({ user: ctx.user?.id }) });
      monitorAuthProvider(adapter, provider);
    },
  });
}

const gauge = async (server: RunningServer) =>
  /conduit_auth_provider_up\{provider="(\w+)"\} (\d)/.exec(await (await fetch(server.url("/api/metrics"))).text())?.slice(1);

forEachAdapter("auth providers: identity provider outages", ({ start }) => {
  it("a refused key set (never fetched) is 503 AUTH_PROVIDER_UNAVAILABLE, not a token error; readiness, gauge and one warn line say so", async () => {
    const logger = recordingLogger();
    const origin = await refusedOrigin();
    const provider = createJwtProvider({ jwksUrl: `${origin}/.well-known/jwks.json` }, { sessions: false, logger });
    const server = await serve(start as never, provider);
    expect(await gauge(server)).toEqual(["jwt", "1"]);
    const token = await idp.sign({ sub: "u1" });
    await expectUnavailable(server, token);
    await expectUnavailable(server, token);
    const ready = await fetch(server.url("/ready"));
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain("authProvider");
    expect(await gauge(server)).toEqual(["jwt", "0"]);
    // One line for the whole outage, naming the host; not one per request.
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatchObject({ object: { provider: "jwt", host: new URL(origin).host } });
    expect(logger.warnings[0]?.message).toContain("unreachable");
  });

  it("a hanging key set is 503 after its timeout; tokens verified before the outage keep working; one line when it ends", async () => {
    const logger = recordingLogger();
    const outage = await startIdentityServer();
    try {
      const provider = createJwtProvider({ jwksUrl: outage.jwksUrl, jwksTimeoutMs: 300, jwksCooldownMs: 0 }, { sessions: false, logger });
      const server = await serve(start as never, provider);
      const known = await outage.sign({ sub: "known" });
      expect((await (await fetch(server.url("/api/whoami"), bearer(known))).json()).data.user).toBe("known");
      // The key set rotates, then the identity provider hangs: a token signed with the new key needs a fetch.
      await outage.rotate();
      const fresh = await outage.sign({ sub: "fresh" });
      outage.hang(true);
      await expectUnavailable(server, fresh);
      expect((await (await fetch(server.url("/api/whoami"), bearer(known))).json()).data.user).toBe("known");
      outage.hang(false);
      expect((await (await fetch(server.url("/api/whoami"), bearer(fresh))).json()).data.user).toBe("fresh");
      expect(logger.warnings.map((line) => line.message)).toEqual([
        expect.stringContaining("unreachable"),
        "identity provider reachable again",
      ]);
    } finally {
      await outage.close();
    }
  });

  it("a key set answering 5xx and recovering: 503 during, 200 after, one warn line at each end, gauge back to 1", async () => {
    const logger = recordingLogger();
    const outage = await startIdentityServer();
    try {
      const provider = createJwtProvider({ jwksUrl: outage.jwksUrl, verifiedCacheTtlMs: 0 }, { sessions: false, logger });
      const server = await serve(start as never, provider);
      const token = await outage.sign({ sub: "u2" });
      outage.failWith(502);
      await expectUnavailable(server, token);
      expect(await gauge(server)).toEqual(["jwt", "0"]);
      outage.failWith(undefined);
      // Readiness probes the identity provider while it is down, so recovery is seen without traffic.
      expect((await fetch(server.url("/ready"))).status).toBe(200);
      expect(await gauge(server)).toEqual(["jwt", "1"]);
      expect((await fetch(server.url("/api/whoami"), bearer(token))).status).toBe(200);
      expect(logger.warnings.map((line) => line.message)).toEqual([
        expect.stringContaining("unreachable"),
        "identity provider reachable again",
      ]);
      expect(logger.warnings[1]?.object).toMatchObject({ provider: "jwt", host: new URL(outage.jwksUrl).host });
    } finally {
      await outage.close();
    }
  });

  it("introspection that hangs past the validation timeout is 503, a refused one too; a bad token stays 401", async () => {
    const slow = createOAuth2Provider(
      { introspectionUrl: `${hangingUrl}/introspect`, clientId: "c", clientSecret: "s", timeoutMs: 10_000 },
      { sessions: false, logger: recordingLogger() },
    );
    await expectUnavailable(await serve(start as never, slow, 300), "opaque-token-1");
    const origin = await refusedOrigin();
    const refused = createOAuth2Provider(
      { introspectionUrl: `${origin}/introspect`, clientId: "c", clientSecret: "s" },
      { sessions: false, logger: recordingLogger() },
    );
    await expectUnavailable(await serve(start as never, refused), "opaque-token-2");
    const working = createOAuth2Provider(
      { introspectionUrl: `${idp.origin}/introspect`, clientId: "conduit", clientSecret: "conduit-client-secret" },
      { sessions: false, logger: recordingLogger() },
    );
    const server = await serve(start as never, working);
    const response = await fetch(server.url("/api/whoami"), bearer("not-issued"));
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe("AUTH_INVALID");
  });
});
