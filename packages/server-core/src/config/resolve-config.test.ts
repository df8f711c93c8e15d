import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../errors/index.js";
import { resolveConfig, validateFramework } from "./resolve-config.js";

describe("resolveConfig", () => {
  it("applies docs/spec.md's defaults table", () => {
    const config = resolveConfig();
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      basePath: "/api",
      timeout: 30_000,
      enableMetrics: true,
      enableSwagger: false,
      disableBuiltInHealth: false,
      rateLimit: { enabled: true, maxRequests: 100, windowMs: 900_000 },
      bodyParser: { enabled: true, limit: 10 * 1024 * 1024 },
      logging: { enabled: true, level: "info" },
      cors: { enabled: true, origins: "*" },
      redaction: { enabled: false, placeholder: "[REDACTED]" },
      shutdown: { gracefulShutdownTimeoutMs: 30_000, drainTimeoutMs: 15_000, forceClose: true },
    });
  });

  it("deep-merges partial nested objects over the defaults", () => {
    const config = resolveConfig({
      rateLimit: { maxRequests: 5 },
      cors: { origins: ["https://a.example"] },
      shutdown: { forceClose: false },
    });
    expect(config.rateLimit).toMatchObject({ enabled: true, maxRequests: 5, windowMs: 900_000 });
    expect(config.cors).toMatchObject({ enabled: true, origins: ["https://a.example"], credentials: false });
    expect(config.shutdown).toEqual({ gracefulShutdownTimeoutMs: 30_000, drainTimeoutMs: 15_000, forceClose: false });
  });

  it("parses byte strings and normalizes the base path", () => {
    expect(resolveConfig({ bodyParser: { limit: "1mb" } }).bodyParser.limit).toBe(1024 * 1024);
    expect(resolveConfig({ basePath: "/v2/" }).basePath).toBe("/v2");
    expect(resolveConfig({ basePath: "/" }).basePath).toBe("");
  });

  it("raises ConfigurationError naming every problem by path", () => {
    let caught: unknown;
    try {
      resolveConfig({ port: -1, timeout: "fast", rateLimit: { maxRequests: 0 }, bogus: true } as never);
    } catch (error) {
      caught = error;
    }
    expect(ConfigurationError.isInstance(caught)).toBe(true);
    const error = caught as ConfigurationError;
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe("INVALID_CONFIG");
    const paths = (error.details as { issues: Array<{ path: string }> }).issues.map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["port", "timeout", "rateLimit.maxRequests", "bogus"]));
    expect(error.message).toContain("port");
  });

  it("rejects unknown nested keys", () => {
    expect(() => resolveConfig({ cors: { origin: "*" } } as never)).toThrow(/cors\.origin: unknown key/);
  });

  it("validates the framework against the closed set", () => {
    expect(validateFramework("koa")).toBe("koa");
    expect(() => validateFramework("nest")).toThrow(ConfigurationError);
  });

  it("refuses cors.credentials with the default origins, naming the key", () => {
    expect(() => resolveConfig({ cors: { credentials: true } })).toThrow(/cors\.credentials: credentials: true needs explicit origins/);
    expect(() => resolveConfig({ cors: { credentials: true, origins: "*" } })).toThrow(/cors\.credentials/);
    expect(resolveConfig({ cors: { credentials: true, origins: [/\.example$/] } }).cors.credentials).toBe(true);
  });

  it("resolves bodyParser depth and lingering, trustProxy (legacy rateLimit.trustProxy: one hop) and health", () => {
    const config = resolveConfig({ bodyParser: { maxDepth: 10, lingerLimit: "1mb" }, rateLimit: { trustProxy: true } });
    expect(config.bodyParser).toMatchObject({ maxDepth: 10, lingerMs: 5_000, lingerLimit: 1024 * 1024 });
    expect(config.trustProxy).toBe(1);
    expect(resolveConfig({ trustProxy: ["loopback"] }).trustProxy).toEqual(["loopback"]);
    expect(resolveConfig().health.processDetails).toBe("authenticated");
    expect(() => resolveConfig({ trustProxy: "999.1.1.1" })).toThrow(/trustProxy/);
    expect(() => resolveConfig({ bodyParser: { maxDepth: 0 } })).toThrow(/bodyParser\.maxDepth/);
  });
});
