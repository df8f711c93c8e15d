import SwaggerParser from "@apidevtools/swagger-parser";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { killLeftovers, runConduit, writeConfig } from "../test-support/spawn-conduit.js";

// In-process (test-support/run-in-process.ts) but for what only the binary shows: its exit code on a
// bad config or flag, and --version.
afterEach(killLeftovers);

const authConfig = () =>
  writeConfig({
    server: { basePath: "/v1" },
    auth: { type: "api-key", keys: { "key-1": { id: "a", roles: ["admin"] } }, skipPaths: ["/tools/*"] },
    authorization: { rules: [{ path: "/v1/memory/*", methods: ["DELETE"], roles: ["admin"] }] },
  });

describe("conduit routes", { timeout: 90_000 }, () => {
  it("lists method, path, group and auth of the configured server without starting it", async () => {
    const result = await runConduitInProcess(["routes", "--config", authConfig(), "--framework", "express"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^METHOD\s+PATH\s+GROUP\s+AUTH$/);
    const row = (method: string, path: string) =>
      lines.find((line) => new RegExp(`^${method}\\s+${path.replace(/[/.]/g, "\\$&")}\\s`).test(line))?.split(/\s{2,}/);
    expect(row("GET", "/health")).toEqual(["GET", "/health", "health", "public"]);
    expect(row("POST", "/v1/agent/generate")).toEqual(["POST", "/v1/agent/generate", "agent", "api-key-auth"]);
    expect(row("GET", "/v1/tools/:name")).toEqual(["GET", "/v1/tools/:name", "tools", "public"]);
    expect(row("DELETE", "/v1/memory/sessions/:id")).toEqual(["DELETE", "/v1/memory/sessions/:id", "memory", "api-key-auth; roles admin"]);
    expect(row("GET", "/v1/memory/sessions/:id")).toEqual(["GET", "/v1/memory/sessions/:id", "memory", "api-key-auth"]);
    expect(result.stdout).not.toContain("\u001b[");
  });

  it("names the identity provider of a provider auth config", async () => {
    const config = writeConfig({ auth: { type: "keycloak", url: "http://127.0.0.1:1", realm: "demo", sessions: false } });
    const result = await runConduitInProcess(["routes", "--json", "--config", config]);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<{ method: string; path: string; auth: string }>;
    expect(rows.find((row) => row.path === "/api/tools")?.auth).toBe("keycloak (provider-auth)");
    expect(rows.find((row) => row.path === "/health")?.auth).toBe("public");
  });

  it("--json gives the same rows as JSON; without auth every route says none", async () => {
    const result = await runConduitInProcess(["routes", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<{ method: string; path: string; group: string; auth: string }>;
    expect(rows).toContainEqual({ method: "POST", path: "/api/agent/stream", group: "agent", auth: "none" });
    expect(rows).toContainEqual({ method: "GET", path: "/api/docs/openapi.json", group: "docs", auth: "none" });
    expect(new Set(rows.map((entry) => entry.auth))).toEqual(new Set(["none"]));
  });

  it("a bad config or flag is one line and exit 2", async () => {
    const bad = await runConduit(["routes", "--config", writeConfig({ sever: {} })]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toEqual([expect.stringMatching(/unknown key\(s\) sever/)]);
    const flag = await runConduit(["routes", "--yaml"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim()).toBe("Unknown option '--yaml' (see conduit routes --help)");
  });
});

describe("conduit openapi", { timeout: 90_000 }, () => {
  it("prints a valid OpenAPI 3.1 document of the configured server (JSON, or YAML with --yaml)", async () => {
    const config = authConfig();
    const json = await runConduitInProcess(["openapi", "--config", config]);
    expect(json.code, json.stderr).toBe(0);
    const document = JSON.parse(json.stdout);
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/v1/agent/generate", "/v1/tools/{name}", "/health"]));
    await SwaggerParser.validate(structuredClone(document));

    const yaml = await runConduitInProcess(["openapi", "--yaml", "--config", config]);
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(yaml.stdout.startsWith("openapi: 3.1.0\n")).toBe(true);
    expect(parse(yaml.stdout)).toEqual(document);
  });
});

describe("conduit --help and --version", { timeout: 90_000 }, () => {
  it("--version prints the package's version", async () => {
    const { version } = (await import("../../package.json", { with: { type: "json" } })).default;
    for (const flag of ["--version", "-v"]) {
      const result = await runConduit([flag]);
      expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
    }
  });

  it("--help lists every command; each command has its own --help", async () => {
    const overview = await runConduitInProcess(["--help"]);
    expect(overview.code).toBe(0);
    for (const name of ["serve", "generate", "routes", "openapi"]) expect(overview.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
    for (const [name, flag] of [
      ["serve", "--workers"],
      ["generate", "--stream"],
      ["routes", "--json"],
      ["openapi", "--yaml"],
    ]) {
      const help = await runConduitInProcess([name as string, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: conduit ${name} `));
      expect(help.stdout).toContain(flag);
    }
  });

  it("no command or an unknown one is a usage error (exit 2)", async () => {
    const none = await runConduitInProcess([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Usage: conduit <command>/);
    const unknown = await runConduitInProcess(["deploy"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toMatch(/^Unknown command "deploy" \(commands: [a-z, ]+; see conduit --help\)$/);
    for (const name of ["serve", "generate", "routes", "openapi"]) expect(unknown.stderr).toContain(name);
  });
});
