import { describe, expect, it } from "vitest";
import { parseServeOptions } from "./config-file.js";
import { runConduitInProcess } from "./test-support/run-in-process.js";
import { writeConfig } from "./test-support/spawn-conduit.js";

// One config-file reader for every command: what one command refuses, the other refuses too, and
// a setting that would do nothing stops the start with exit 2 and one line naming it.
const ADMIN_KEY = "config-reader-admin-key-0123456789abcdef";
const proxySection = {
  enabled: true,
  clientKeys: ["config-reader-client-key-0123"],
  accounts: [{ id: "a", type: "api-key", apiKey: "sk-ant-config-reader" }],
};
const commands = {
  serve: ["serve", "--port", "0", "--host", "127.0.0.1"],
  proxy: ["proxy", "--port", "0", "--host", "127.0.0.1"],
} as const;
const quiet = { HOST: "", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", CONDUIT_ADMIN_KEY: "" };

async function refused(command: keyof typeof commands, file: unknown, env: NodeJS.ProcessEnv = {}) {
  // In-process: the config is refused before anything starts (a start instead fails on the code).
  const { code, stderr } = await runConduitInProcess([...commands[command], "--config", writeConfig(file)], { ...quiet, ...env });
  expect(code, stderr).toBe(2);
  expect(stderr.trim().split("\n"), stderr).toHaveLength(1);
  expect(stderr).not.toContain("sk-ant-config-reader");
  return stderr;
}

describe("the one config-file reader of conduit serve, conduit proxy and the demo", { timeout: 60_000 }, () => {
  it.each(["serve", "proxy"] as const)("%s: an unknown top-level key exits 2 naming it and listing the allowed ones", async (command) => {
    const stderr = await refused(command, { proxy: proxySection, provider: { openai: {} } });
    expect(stderr).toMatch(/unknown key\(s\) provider \(allowed: .*\bproxy\b.*\bproviders\b.*\)/);
    expect(stderr).toContain("server");
  });

  it("proxy: a section only conduit serve honours (auth, mcpServers) is refused, not ignored", async () => {
    const stderr = await refused("proxy", { proxy: proxySection, auth: { type: "api-key", keys: { "some-key-0123456789": {} } } });
    expect(stderr).toMatch(/auth/);
    expect(stderr).toMatch(/conduit serve/);
  });

  it.each(["serve", "proxy"] as const)("%s: proxy.clientKeys beside a keys section exits 2 naming proxy.clientKeys", async (command) => {
    const stderr = await refused(command, { proxy: proxySection, keys: { store: "memory" } });
    expect(stderr).toContain("proxy.clientKeys");
    expect(stderr).not.toContain("config-reader-client-key-0123");
  });

  it.each(["serve", "proxy"] as const)("%s: a CONDUIT_ADMIN_KEY shorter than 32 characters exits 2 naming it", async (command) => {
    const stderr = await refused(command, { proxy: proxySection }, { CONDUIT_ADMIN_KEY: "too-short-admin-key" });
    expect(stderr).toContain("CONDUIT_ADMIN_KEY");
    expect(stderr).not.toContain("too-short-admin-key");
  });

  it.each(["serve", "proxy"] as const)("%s: console.sessionTtlSeconds out of bounds (1e308) exits 2 naming it", async (command) => {
    const stderr = await refused(command, { proxy: proxySection, admin: { keys: [ADMIN_KEY] }, console: { sessionTtlSeconds: 1e308 } });
    expect(stderr).toContain("console.sessionTtlSeconds");
  });

  // Each section is checked by the schema of the package that owns it; the message is that schema's, with the key path.
  it.each([
    ["admin", { admin: { keys: [ADMIN_KEY], roles: ["viewer"] } }, "admin.roles: unknown key"],
    ["console", { admin: { keys: [ADMIN_KEY] }, console: { sessionTTL: 60 } }, "console.sessionTTL: unknown key"],
    ["telemetry", { telemetry: { sdk: "jaeger" } }, 'telemetry.sdk: expected "conduit" | "opentelemetry"'],
    ["aiWorkflows", { aiWorkflows: { providerTimeoutMs: 0 } }, "aiWorkflows.providerTimeoutMs: expected a positive number"],
  ])("serve: a bad %s section exits 2 naming the key", async (_section, file, message) => {
    const stderr = await refused("serve", file);
    expect(stderr).toMatch(/Config file \S+\.json: /);
    expect(stderr).toContain(message);
  });

  it("proxy: a bad telemetry key exits 2 naming it, as serve does", async () => {
    const stderr = await refused("proxy", { proxy: proxySection, telemetry: { endpoint: "http://127.0.0.1:4318", headerz: {} } });
    expect(stderr).toContain("telemetry.headerz: unknown key");
  });

  it("a top-level metrics key is the server's metrics option; given twice or malformed it stops the start naming it", () => {
    const token = "metrics-scraper-token-0123456789";
    expect(parseServeOptions(["--config", writeConfig({ metrics: { token } })], {}).server.metrics).toEqual({ token });
    expect(() => parseServeOptions(["--config", writeConfig({ metrics: { public: true }, server: { metrics: { token } } })], {})).toThrow(
      /metrics is given twice/,
    );
    expect(() => parseServeOptions(["--config", writeConfig({ metrics: { token: "short" } })], {})).toThrow(/metrics\.token/);
  });
});
