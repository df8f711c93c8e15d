import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { OPENTELEMETRY_SDK_PACKAGES } from "./engines/opentelemetry/sdk-modules.js";

const sourceDir = fileURLToPath(new URL(".", import.meta.url));
const recorder = pathToFileURL(join(sourceDir, "testing/resolve-recorder.mjs")).href;
const entry = pathToFileURL(join(sourceDir, "index.ts")).href;

/**
 * Imports @conduit-ai/telemetry in a fresh Node process (tsx, from source), calls
 * `startTelemetry` with `environment`, and returns the OpenTelemetry packages that process
 * loaded, by the ESM loader (a resolve hook sees them) or by `require` (the CommonJS cache).
 */
function openTelemetryLoaded(
  environment: Record<string, string>,
  hide: string[] = [],
): { packages: string[]; started: boolean; failure?: string } {
  const folder = mkdtempSync(join(tmpdir(), "conduit-telemetry-graph-"));
  const file = join(folder, "resolved.txt");
  const script = `
    import { createRequire, register } from "node:module";
    import { writeFileSync } from "node:fs";
    register(${JSON.stringify(recorder)}, import.meta.url, { data: { file: ${JSON.stringify(file)}, hide: ${JSON.stringify(hide)} } });
    writeFileSync(${JSON.stringify(file)}, "");
    const telemetry = await import(${JSON.stringify(entry)});
    let handle, failure;
    try {
      handle = await telemetry.startTelemetry({ environment: ${JSON.stringify(environment)} });
    } catch (error) {
      failure = error.code + ": " + error.message;
    }
    await handle?.shutdown();
    console.log(JSON.stringify({ started: handle !== undefined, failure, required: Object.keys(createRequire(import.meta.url).cache) }));`;
  try {
    const result = spawnSync(
      process.execPath,
      ["--conditions=@conduit-ai/source", "--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: sourceDir,
        encoding: "utf8",
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? "" },
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as {
      started: boolean;
      failure?: string;
      required: string[];
    };
    const loaded = [...output.required, ...readFileSync(file, "utf8").split("\n")].map((path) => decodeURIComponent(path));
    const packages = new Set(loaded.flatMap((path) => /\/node_modules\/(@opentelemetry\/[^/]+)\//.exec(path)?.[1] ?? []));
    return { packages: [...packages].sort(), started: output.started, ...(output.failure ? { failure: output.failure } : {}) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

describe("tracing off loads no OpenTelemetry module", () => {
  it("no endpoint, or OTEL_SDK_DISABLED / OTEL_TRACES_EXPORTER=none: startTelemetry resolves undefined and nothing of OpenTelemetry is loaded", () => {
    expect(openTelemetryLoaded({})).toEqual({ packages: [], started: false });
    expect(openTelemetryLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_SDK_DISABLED: "true" })).toEqual({
      packages: [],
      started: false,
    });
    expect(openTelemetryLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_TRACES_EXPORTER: "none" })).toEqual({
      packages: [],
      started: false,
    });
  }, 120_000);

  it("tracing on with the lean engine (the default) loads none either", () => {
    expect(openTelemetryLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" })).toEqual({ packages: [], started: true });
    expect(openTelemetryLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toEqual({
      packages: [],
      started: true,
    });
  }, 120_000);

  it("the detection sees them once the OpenTelemetry engine is asked for (protobuf exporter, not the JSON one)", () => {
    const { packages, started } = openTelemetryLoaded({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      CONDUIT_TELEMETRY_SDK: "opentelemetry",
    });
    expect(started).toBe(true);
    expect(packages).toEqual(
      expect.arrayContaining(["@opentelemetry/api", "@opentelemetry/sdk-trace-node", "@opentelemetry/exporter-trace-otlp-proto"]),
    );
    expect(packages).not.toContain("@opentelemetry/exporter-trace-otlp-http");
  }, 60_000);

  it("without the OpenTelemetry SDK installed (its packages are optional peers), the opentelemetry engine names the one install line for all of them", () => {
    const { started, failure } = openTelemetryLoaded(
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", CONDUIT_TELEMETRY_SDK: "opentelemetry" },
      ["@opentelemetry/sdk-trace-node"],
    );
    expect(started).toBe(false);
    expect(failure).toMatch(
      /^MISSING_DEPENDENCY: Missing dependency "@opentelemetry\/sdk-trace-node" \(needed by the OpenTelemetry tracing engine/,
    );
    for (const name of OPENTELEMETRY_SDK_PACKAGES) expect(failure).toContain(name);
  }, 60_000);
});

describe("the default install", () => {
  it("depends on the OpenTelemetry API alone; the SDK packages are optional peers (and dev dependencies for these tests)", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).toEqual(["@opentelemetry/api"]);
    for (const name of OPENTELEMETRY_SDK_PACKAGES.filter((name) => name !== "@opentelemetry/api")) {
      expect(manifest.peerDependencies[name], name).toBeDefined();
      expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(manifest.devDependencies[name], name).toBe(manifest.peerDependencies[name]);
    }
  });
});
