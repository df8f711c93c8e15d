import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/** Packages the core must not load until the feature that needs them is on. */
const HEAVY = ["pino", "prom-client", "yaml", "openapi3-ts", "swagger-ui-dist", "ioredis"];

const sourceDir = fileURLToPath(new URL(".", import.meta.url));
const recorder = pathToFileURL(join(sourceDir, "testing/resolve-recorder.mjs")).href;
const entry = pathToFileURL(join(sourceDir, "index.ts")).href;
const subpath = (name: string) => pathToFileURL(join(sourceDir, name, "index.ts")).href;

/**
 * Imports the core in a fresh Node process (through tsx, from source), runs `then` there, and
 * returns the heavy packages that process loaded: by the ESM loader (seen by a resolve hook)
 * or by `require` (the CommonJS cache).
 */
function heavyPackagesLoaded(then = ""): string[] {
  const folder = mkdtempSync(join(tmpdir(), "conduit-light-core-"));
  const file = join(folder, "resolved.txt");
  const script = `
    import { createRequire, register } from "node:module";
    import { writeFileSync } from "node:fs";
    register(${JSON.stringify(recorder)}, import.meta.url, { data: { file: ${JSON.stringify(file)} } });
    writeFileSync(${JSON.stringify(file)}, "");
    const core = await import(${JSON.stringify(entry)});
    const openapi = await import(${JSON.stringify(subpath("openapi"))});
    const metrics = await import(${JSON.stringify(subpath("metrics"))});
    const middleware = await import(${JSON.stringify(subpath("middleware"))});
    ${then}
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
  try {
    const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: sourceDir,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    const required: string[] = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "[]");
    const resolved = readFileSync(file, "utf8").split("\n");
    const loaded = [...required, ...resolved].map((path) => decodeURIComponent(path));
    return HEAVY.filter((name) => loaded.some((path) => path.includes(`/node_modules/${name}/`)));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The core's own source files a fresh process resolved by importing the main entry alone (and running `then`). */
function coreFilesLoaded(then = ""): string[] {
  const folder = mkdtempSync(join(tmpdir(), "conduit-light-core-"));
  const file = join(folder, "resolved.txt");
  const script = `
    import { register } from "node:module";
    import { writeFileSync } from "node:fs";
    register(${JSON.stringify(recorder)}, import.meta.url, { data: { file: ${JSON.stringify(file)} } });
    writeFileSync(${JSON.stringify(file)}, "");
    const core = await import(${JSON.stringify(entry)});
    ${then}`;
  try {
    const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: sourceDir,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    const resolved = readFileSync(file, "utf8")
      .split("\n")
      .map((path) => decodeURIComponent(path));
    return resolved
      .filter((path) => path.startsWith(pathToFileURL(sourceDir).href))
      .map((path) => path.slice(pathToFileURL(sourceDir).href.length));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

describe("light core", () => {
  it("the main entry loads the OpenAPI generator only when a document is first asked for", () => {
    expect(coreFilesLoaded()).not.toContain("openapi/generate-openapi.ts");
    const serveDocument = `
      const group = core.createDocsRoutes({ getRoutes: () => [] });
      const route = group.routes.find((item) => item.path === "/openapi.json");
      const answer = await route.handler({});
      if (!JSON.parse(answer.body).openapi) throw new Error("no OpenAPI document");`;
    expect(coreFilesLoaded(serveDocument)).toContain("openapi/generate-openapi.ts");
  }, 60_000);

  it("importing @conduit-ai/server-core (and its openapi, metrics, middleware subpaths) loads none of pino, prom-client, yaml, openapi3-ts, swagger-ui-dist, ioredis", () => {
    expect(heavyPackagesLoaded()).toEqual([]);
  }, 60_000);

  it("generating an OpenAPI document loads none of them either", () => {
    expect(heavyPackagesLoaded("openapi.generateOpenAPIDocument([]);")).toEqual([]);
  }, 60_000);

  it("metrics (on by default) load no package at all: the core writes the exposition itself", () => {
    const scrape = "await new metrics.ServerMetrics({ getActiveConnectionCount: () => 0 }).registry.metrics();";
    expect(heavyPackagesLoaded(scrape)).toEqual([]);
  }, 60_000);

  // swagger-ui-dist is only read as files (its folder is resolved), so it never shows as loaded.
  it("the detection sees them once the features that need them are used (logging, docs)", () => {
    const useFeatures = `
      middleware.createServerLogger({ destination: { write() {} } });
      core.createDocsRoutes({ getRoutes: () => [] });`;
    expect(heavyPackagesLoaded(useFeatures)).toEqual(["pino", "yaml"]);
  }, 60_000);
});
