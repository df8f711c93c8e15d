import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as main from "./index.js";

/** Exports every refactor of the pipeline would break if they were public: `./internal` only. */
const INTERNAL = [
  "RequestHandler",
  "MiddlewareStack",
  "DeadlineQueue",
  "within",
  "ERROR_HANDLING_STATE_KEY",
  "jsonDepthExceeds",
  "encodeSseFrame",
];

/** The entries with a semver promise (`./internal` is Conduit's own; `./testing` is for tests). */
const PUBLIC_SUBPATHS = ["./middleware", "./metrics", "./openapi", "./node", "./web", "./pricing"];

describe("the public API", () => {
  it("keeps the main entry to at most 80 runtime exports", () => {
    expect(Object.keys(main).length).toBeLessThanOrEqual(80);
  });

  it("keeps the pipeline's internals out of the main entry and ./middleware", async () => {
    const middleware = await import("@conduit-ai/server-core/middleware");
    for (const entry of [main, middleware]) for (const name of INTERNAL) expect(Object.keys(entry)).not.toContain(name);
  });

  it("keeps each subpath to at most 60 runtime exports", async () => {
    for (const subpath of [...PUBLIC_SUBPATHS, "./internal"]) {
      const entry = (await import(`@conduit-ai/server-core${subpath.slice(1)}`)) as Record<string, unknown>;
      expect(Object.keys(entry).length, subpath).toBeLessThanOrEqual(60);
    }
  });

  it("puts the building blocks other packages share on ./internal, not ./middleware", async () => {
    const [middleware, internal] = await Promise.all([
      import("@conduit-ai/server-core/middleware"),
      import("@conduit-ai/server-core/internal"),
    ]);
    for (const name of [
      "MiddlewareStack",
      "DeadlineQueue",
      "within",
      "jsonDepthExceeds",
      "BoundedCache",
      "runScript",
      "parseAuthorization",
    ]) {
      expect(Object.keys(middleware), name).not.toContain(name);
      expect(Object.keys(internal), name).toContain(name);
    }
  });

  it("serves every documented subpath from source and from dist, types first", async () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      exports: Record<string, { types?: string; default?: string } | string>;
    };
    const subpaths = Object.keys(manifest.exports).filter((key) => key !== "./package.json");
    expect(subpaths).toEqual([".", "./middleware", "./internal", "./metrics", "./openapi", "./node", "./web", "./pricing", "./testing"]);
    for (const subpath of subpaths) {
      const target = manifest.exports[subpath] as Record<string, string>;
      expect(Object.keys(target)).toEqual(["@conduit-ai/source", "types", "default"]);
      const module = (await import(`@conduit-ai/server-core${subpath.slice(1)}`)) as Record<string, unknown>;
      expect(Object.keys(module).length).toBeGreaterThan(0);
    }
  });

  it("tags no entry file internal: stripInternal would drop the export the tag lands on", () => {
    for (const entry of [
      "index.ts",
      "middleware/index.ts",
      "internal/index.ts",
      "metrics/index.ts",
      "openapi/index.ts",
      "node/index.ts",
      "web/index.ts",
      "pricing/index.ts",
      "testing/index.ts",
    ]) {
      expect(readFileSync(new URL(entry, import.meta.url), "utf8"), entry).not.toContain("@internal");
    }
  });

  it("puts each building block on its subpath", async () => {
    const [middleware, metrics, openapi, node, web, testing] = await Promise.all([
      import("@conduit-ai/server-core/middleware"),
      import("@conduit-ai/server-core/metrics"),
      import("@conduit-ai/server-core/openapi"),
      import("@conduit-ai/server-core/node"),
      import("@conduit-ai/server-core/web"),
      import("@conduit-ai/server-core/testing"),
    ]);
    expect(typeof middleware.createRateLimitMiddleware).toBe("function");
    expect(typeof metrics.getServerMetrics).toBe("function");
    expect(typeof openapi.generateOpenAPIDocument).toBe("function");
    expect(typeof node.NodeServerAdapter).toBe("function");
    expect(typeof web.encodeEventStream).toBe("function");
    expect(typeof testing.createTestApp).toBe("function");
  });
});
