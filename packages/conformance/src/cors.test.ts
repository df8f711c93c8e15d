import { type BaseServerAdapter, ConfigurationError, type ServerAdapterConfig, createServer } from "@conduit-ai/server-core";
import { expect, it } from "vitest";
import { forEachAdapter, rawRequest } from "./harness.js";

function registerRoutes(adapter: BaseServerAdapter<unknown>): void {
  adapter.registerRoute({ method: "POST", path: "/data", handler: () => ({ ok: true }) });
}

const preflight = (origin: string, requestHeaders?: string) => ({
  method: "OPTIONS",
  path: "/api/data",
  headers: {
    origin,
    "access-control-request-method": "POST",
    ...(requestHeaders ? { "access-control-request-headers": requestHeaders } : {}),
  },
});

const varyOf = (headers: Record<string, string | string[] | undefined>) =>
  String(headers.vary ?? "")
    .split(/\s*,\s*/)
    .filter(Boolean);

forEachAdapter("CORS", ({ start }) => {
  it("refuses credentials: true with the default origins at config time, naming the key", async () => {
    const config: ServerAdapterConfig = { cors: { credentials: true } };
    let caught: unknown;
    try {
      await start({ config });
    } catch (error) {
      caught = error;
    }
    expect(ConfigurationError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain("cors.credentials");
    await expect(createServer(undefined, { config })).rejects.toThrow(/cors\.credentials/);
    await expect(createServer(undefined, { config: { cors: { credentials: true, origins: "*" } } })).rejects.toThrow(/cors\.credentials/);
  });

  it("never pairs a foreign origin with Access-Control-Allow-Credentials", async () => {
    const server = await start({ setup: registerRoutes, config: { cors: { credentials: true, origins: ["https://app.example"] } } });
    for (const request of [
      preflight("https://evil.example", "content-type"),
      { method: "POST", path: "/api/data", headers: { origin: "https://evil.example" } },
    ]) {
      const response = await rawRequest(server.port, request);
      expect(response.headers["access-control-allow-origin"]).toBeUndefined();
      expect(response.headers["access-control-allow-credentials"]).toBeUndefined();
    }
    const allowed = await rawRequest(server.port, { method: "POST", path: "/api/data", headers: { origin: "https://app.example" } });
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(allowed.headers["access-control-allow-credentials"]).toBe("true");
    expect(varyOf(allowed.headers)).toContain("Origin");
  });

  it("matches origins by list, RegExp and function (sync or async)", async () => {
    const configs: ServerAdapterConfig["cors"][] = [
      { origins: ["https://a.example", /^https:\/\/[a-z0-9]+\.preview\.example$/g] },
      { origins: (origin) => origin === "https://a.example" || origin.endsWith(".preview.example") },
      { origins: async (origin) => (origin === "https://a.example" || /\.preview\.example$/.test(origin) ? origin : false) },
    ];
    for (const cors of configs) {
      const server = await start({ setup: registerRoutes, config: { cors } });
      for (const [origin, allowed] of [
        ["https://a.example", true],
        ["https://pr1.preview.example", true],
        ["https://pr1.preview.example", true],
        ["https://evil.example", false],
        ["https://a.example.evil.example", false],
      ] as const) {
        const response = await rawRequest(server.port, { method: "POST", path: "/api/data", headers: { origin } });
        expect(response.headers["access-control-allow-origin"], origin).toBe(allowed ? origin : undefined);
        expect(varyOf(response.headers), origin).toContain("Origin");
      }
    }
  });

  it("reflects the requested headers with Vary, or sends the configured list", async () => {
    const reflecting = await start({ setup: registerRoutes, config: { cors: { origins: ["https://a.example"], maxAge: 60 } } });
    const reflected = await rawRequest(reflecting.port, preflight("https://a.example", "x-custom-one, content-type"));
    expect(reflected.status).toBe(204);
    expect(reflected.headers["access-control-allow-headers"]).toBe("x-custom-one, content-type");
    expect(reflected.headers["access-control-allow-methods"]).toContain("POST");
    expect(reflected.headers["access-control-max-age"]).toBe("60");
    expect(varyOf(reflected.headers)).toEqual(expect.arrayContaining(["Origin", "Access-Control-Request-Headers"]));

    const listed = await start({
      setup: registerRoutes,
      config: { cors: { origins: "*", allowedHeaders: ["Content-Type", "X-API-Key"] } },
    });
    const fixed = await rawRequest(listed.port, preflight("https://b.example", "x-custom-one"));
    expect(fixed.headers["access-control-allow-origin"]).toBe("*");
    expect(fixed.headers["access-control-allow-headers"]).toBe("Content-Type, X-API-Key");
    // A static "*" with a fixed list is the same answer for everyone: nothing to vary on.
    expect(varyOf(fixed.headers)).not.toContain("Origin");
    expect(varyOf(fixed.headers)).not.toContain("Access-Control-Request-Headers");
  });
});
