import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestApp } from "../testing/test-kit.js";
import { createStaticRoutes } from "./static-routes.js";

const root = mkdtempSync(join(tmpdir(), "conduit-static-"));
const directory = join(root, "site");
mkdirSync(join(directory, "assets"), { recursive: true });
writeFileSync(join(directory, "index.html"), "<!doctype html><title>x</title>");
writeFileSync(join(directory, "assets", "index-BxK3_9aQ.js"), "console.log(1)");
writeFileSync(join(directory, "assets", "style-Ab12Cd34.css"), "body{}");
writeFileSync(join(directory, "notes.md"), "not served: unknown extension");
writeFileSync(join(root, "secret.txt"), "outside the folder");
afterAll(() => rmSync(root, { recursive: true, force: true }));

function app() {
  const { adapter, request } = createTestApp();
  adapter.registerRouteGroup(createStaticRoutes({ prefix: "/console", directory, headers: { "x-extra": "yes" } }));
  return request;
}

describe("createStaticRoutes", () => {
  it("serves the index at the prefix, with and without the trailing slash, not cached", async () => {
    const request = app();
    for (const url of ["/console", "/console/"]) {
      const response = await request({ url });
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.headers["cache-control"]).toBe("no-cache");
      expect(response.headers["x-extra"]).toBe("yes");
      expect(response.text).toContain("<title>x</title>");
    }
  });

  it("serves hashed assets with their content type, cached for a year as immutable", async () => {
    const request = app();
    const script = await request({ url: "/console/assets/index-BxK3_9aQ.js" });
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(script.text).toBe("console.log(1)");
    const style = await request({ url: "/console/assets/style-Ab12Cd34.css" });
    expect(style.headers["content-type"]).toBe("text/css; charset=utf-8");
  });

  it("answers 404 in the envelope for unknown files, unknown extensions and any way out of the folder", async () => {
    const request = app();
    for (const url of [
      "/console/missing.js",
      "/console/notes.md",
      "/console/../secret.txt",
      "/console/assets/..%2F..%2Fsecret.txt",
      "/console/%2e%2e/secret.txt",
      "/console//etc/passwd",
      `/console/${encodeURIComponent(join(root, "secret.txt"))}`,
    ]) {
      const response = await request({ url });
      expect(response.status, url).toBe(404);
      expect(response.json<{ error: { code: string } }>().error.code, url).toMatch(/^(ASSET|ROUTE)_NOT_FOUND$/);
      expect(response.text).not.toContain("outside the folder");
    }
  });

  it("redirects the bare prefix to the trailing slash when asked, so relative links resolve under it", async () => {
    const { adapter, request } = createTestApp();
    adapter.registerRouteGroup(createStaticRoutes({ prefix: "/tools/console", directory, bareIndex: "redirect" }));
    const bare = await request({ url: "/tools/console?x=1" });
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe("console/");
    expect(new URL(String(bare.headers.location), "http://host/tools/console").pathname).toBe("/tools/console/");
    const slash = await request({ url: "/tools/console/" });
    expect(slash.status).toBe(200);
    expect(slash.text).toContain("<title>x</title>");
  });

  it("does not claim paths beside the prefix", async () => {
    const request = app();
    expect((await request({ url: "/consoles" })).status).toBe(404);
    expect((await request({ url: "/consoles" })).json<{ error: { code: string } }>().error.code).not.toBe("ASSET_NOT_FOUND");
  });
});
