import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";

export const ADMIN_KEY = "browser-test-admin-key-0123456789abcdefghijklmnop";

/** The cli's source: the test runs `conduit proxy` exactly as an operator does (`pnpm conduit -- proxy`). */
const CLI_FOLDER = fileURLToPath(new URL("../../cli/", import.meta.url));

/** The config file an operator would write: the proxy over the local Anthropic fake, virtual keys in memory, an admin key. */
function configFor(upstream: string) {
  return {
    proxy: {
      enabled: true,
      upstream: { anthropic: upstream },
      accounts: [
        { id: "primary", type: "api-key", apiKey: "sk-primary" },
        { id: "backup", type: "api-key", apiKey: "sk-backup", priority: 1 },
      ],
    },
    keys: { store: "memory" },
    admin: { keys: [ADMIN_KEY] },
    server: { logging: { enabled: false }, rateLimit: { enabled: false } },
  };
}

/**
 * A real Conduit server on loopback: `conduit proxy --config <file>` spawned from the cli's source
 * (the same assembly as in production: governance's `/admin` API and gate, the proxy, the console),
 * in front of a local Anthropic fake speaking the Messages wire format. Resolves once it listens.
 */
export async function startConsoleServer(extra: Record<string, unknown> = {}) {
  const fake: FakeAnthropic = await startFakeAnthropic();
  fake.credentials.add("sk-primary");
  fake.credentials.add("sk-backup");
  const folder = mkdtempSync(join(tmpdir(), "conduit-console-browser-"));
  const configFile = join(folder, "conduit.json");
  writeFileSync(configFile, JSON.stringify({ ...configFor(fake.url), ...extra }));
  // The runner's FORCE_COLOR and the operator's own admin key must not reach the child.
  const { FORCE_COLOR: _color, CONDUIT_ADMIN_KEY: _admin, ...inherited } = process.env;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--conditions=@conduit-ai/source",
      "--import",
      "tsx",
      join(CLI_FOLDER, "src", "bin.ts"),
      "proxy",
      "--config",
      configFile,
      "--port",
      "0",
    ],
    { cwd: CLI_FOLDER, env: { ...inherited, PORT: "", REDIS_URL: "", DATABASE_URL: "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`conduit proxy did not start in 60 s:\n${output}`)), 60_000);
    child.stdout?.on("data", () => {
      const match = /Conduit proxy listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`conduit proxy exited with ${code}:\n${output}`));
    });
  });
  /** The real admin API, asked as an operator's script would (`Authorization: Bearer <admin key>`). */
  const admin = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: T }).data;
  };
  return {
    url,
    fake,
    admin,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      await fake.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
