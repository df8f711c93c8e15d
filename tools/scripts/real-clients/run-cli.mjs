// Runs one real CLI to its end in an isolated home, with a time limit, and times it.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CLI_TIMEOUT_MS = 120_000;

/**
 * Runs `command args` in `cwd` with only PATH from this process plus `env`; never inherits the
 * caller's credentials or config. Resolves with the exit code, output and wall time.
 *
 * @example
 * const { code, stdout, ms } = await runCli("claude", ["-p", "hi"], { cwd, env: { HOME: home } });
 */
export function runCli(command, args, { cwd, env }) {
  const started = performance.now();
  const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH, LANG: "C.UTF-8", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), CLI_TIMEOUT_MS);
  return new Promise((resolve) =>
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - started) });
    }),
  );
}

/** A fresh working folder holding the file the fake agents ask the CLIs to read. */
export function makeWorkspace() {
  const folder = mkdtempSync(join(tmpdir(), "conduit-real-clients-work-"));
  const file = join(folder, "notes.txt");
  writeFileSync(file, "The secret word is pineapple-42.\n");
  return {
    folder,
    file,
    prompt: `Please read the file ${file} and tell me the secret word.`,
    answer: "The file says the secret word is pineapple-42.",
  };
}

/** Environment for `claude -p`: an empty HOME, an API key, no updater, telemetry or other traffic. */
export function claudeEnvironment(baseUrl, clientKey) {
  return {
    HOME: mkdtempSync(join(tmpdir(), "conduit-real-clients-home-")),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: clientKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    NO_COLOR: "1",
  };
}

/**
 * A CODEX_HOME whose config.toml selects `provider` ("conduit": a custom provider at `baseUrl`
 * with the key in CONDUIT_API_KEY; "openai": the built-in provider with `openai_base_url`).
 */
export function codexEnvironment({ provider, baseUrl, model, clientKey }) {
  const home = mkdtempSync(join(tmpdir(), "conduit-real-clients-home-"));
  const codexHome = mkdtempSync(join(home, "codex-"));
  const lines = [`model = "${model}"`, `model_provider = "${provider}"`];
  if (provider === "openai") lines.push(`openai_base_url = "${baseUrl}"`);
  else
    lines.push(
      "",
      `[model_providers.${provider}]`,
      'name = "Conduit"',
      `base_url = "${baseUrl}"`,
      'wire_api = "responses"',
      'env_key = "CONDUIT_API_KEY"',
    );
  writeFileSync(join(codexHome, "config.toml"), `${lines.join("\n")}\n`);
  return { HOME: home, CODEX_HOME: codexHome, CONDUIT_API_KEY: clientKey, NO_COLOR: "1" };
}
