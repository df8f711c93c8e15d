#!/usr/bin/env node
// The real CLIs against Conduit: Claude Code (`claude -p`) and Codex CLI (`codex exec`),
// installed from npm into a scratch folder (never workspace dependencies), run offline against
// loopback fakes of the vendor APIs with `conduit proxy` and `conduit serve` (a `proxy` key) in
// between. A recording tap in front of Conduit lists every call each CLI made and what it got.
//
// Then the MCP gateway: each CLI adds Conduit's /mcp endpoint with a virtual key and
// calls a tool of server-everything through it (real-clients/mcp-gateway-checks.mjs).
//
// Usage: node tools/scripts/real-clients-check.mjs [--record <folder>] [--only claude|codex|mcp]
// --record writes claude-code-sessions.json and codex-sessions.json (the conformance replay fixtures).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { callsOf, createCheckRunner, expect, summaryOf } from "./real-clients/check-runner.mjs";
import { startConduit } from "./real-clients/conduit-process.mjs";
import { startFakeAnthropicAgent } from "../../packages/fakes/src/agents/fake-anthropic-agent.mjs";
import { startFakeCodexAgent } from "../../packages/fakes/src/agents/fake-codex-agent.mjs";
import { mcpGatewayChecks } from "./real-clients/mcp-gateway-checks.mjs";
import { sessionOf, writeSessions } from "./real-clients/record-session.mjs";
import { startRecordingTap } from "./real-clients/recording-tap.mjs";
import { claudeEnvironment, codexEnvironment, makeWorkspace, runCli } from "./real-clients/run-cli.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// `pnpm test:real-clients -- --only claude` passes the "--" on; it is skipped.
const { values: options } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: { record: { type: "string" }, only: { type: "string" }, "install-only": { type: "boolean" } },
});
const CLIENTS = { "@anthropic-ai/claude-code": "2.1.197", "@openai/codex": "0.171.0" };
const CLIENT_KEY = "real-clients-client-key-0123456789";
const ANTHROPIC_KEY = "sk-ant-real-clients-pool";
const CODEX_TOKEN = "codex-real-clients-token";
const log = (message) => runner.log(message);

/** Installs the pinned CLIs once into node_modules/.cache (reused while the versions match). */
function installClients() {
  const folder = join(root, "node_modules/.cache/conduit-clients");
  const installed = Object.entries(CLIENTS).every(([name, version]) => {
    const manifest = join(folder, "node_modules", name, "package.json");
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === version;
  });
  if (!installed) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "conduit-clients", private: true }));
    const specs = Object.entries(CLIENTS).map(([name, version]) => `${name}@${version}`);
    log(`installing ${specs.join(" ")}`);
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", ...specs], {
      cwd: folder,
      stdio: "inherit",
    });
  }
  return { claude: join(folder, "node_modules/.bin/claude"), codex: join(folder, "node_modules/.bin/codex") };
}

const runner = createCheckRunner("real-clients");
const { check } = runner;
/** Sessions recorded through `conduit proxy`, written as a fixture with --record. */
const recordings = { claude: {}, codex: {} };

async function claudeChecks(bin, conduit, command, anthropic) {
  await check(`claude -p with a Read tool turn through conduit ${command}`, async () => {
    const tap = await startRecordingTap(conduit.url);
    const workspace = makeWorkspace();
    const before = anthropic.requests.length;
    try {
      const run = await runCli(bin, ["-p", workspace.prompt, "--allowedTools", "Read"], {
        cwd: workspace.folder,
        env: claudeEnvironment(tap.url, CLIENT_KEY),
      });
      expect(run.code === 0, `exit ${run.code}: ${run.stderr.trim() || run.stdout.trim()}`);
      expect(run.stdout.includes(workspace.answer), `stdout lacks the final answer: ${run.stdout.trim()}`);
      const upstream = anthropic.requests.slice(before).filter((request) => request.url.startsWith("/v1/messages?"));
      const sawResult = upstream.some((request) => request.body.includes('"tool_result"') && request.body.includes("pineapple-42"));
      expect(sawResult, "the upstream never saw the Read tool's result");
      const posts = tap.exchanges.filter((call) => call.method === "POST");
      expect(posts.length >= 2 && posts.every((call) => call.status === 200), `not every POST got 200: ${callsOf(posts).join(", ")}`);
      if (command === "proxy") recordings.claude["tool-turn"] = sessionOf(tap.exchanges, anthropic.requests.slice(before));
      return `${run.ms} ms; calls: ${summaryOf(tap.exchanges)}`;
    } finally {
      await tap.close();
    }
  });
  await check(`claude -p "/context" through conduit ${command} (count_tokens)`, async () => {
    const tap = await startRecordingTap(conduit.url);
    const workspace = makeWorkspace();
    const before = anthropic.requests.length;
    try {
      const run = await runCli(bin, ["-p", "/context"], { cwd: workspace.folder, env: claudeEnvironment(tap.url, CLIENT_KEY) });
      expect(run.code === 0, `exit ${run.code}: ${run.stderr.trim() || run.stdout.trim()}`);
      const counted = tap.exchanges.filter((call) => call.url.startsWith("/v1/messages/count_tokens"));
      expect(counted.length > 0, `no count_tokens call: ${callsOf(tap.exchanges).join(", ")}`);
      const failed = tap.exchanges.filter((call) => call.method === "POST" && call.status !== 200);
      expect(failed.length === 0, `refused: ${callsOf(failed).join(", ")}`);
      if (command === "proxy") recordings.claude.context = sessionOf(tap.exchanges, anthropic.requests.slice(before));
      return `${run.ms} ms; calls: ${summaryOf(tap.exchanges) || "none"}`;
    } finally {
      await tap.close();
    }
  });
}

/** A wrong client key: Conduit's 401 (Anthropic's shape, x-should-retry: false) stops Claude Code at once. */
async function claudeWrongKeyCheck(bin, conduit, command) {
  await check(`claude -p with a wrong client key through conduit ${command} stops without retrying`, async () => {
    const tap = await startRecordingTap(conduit.url);
    const workspace = makeWorkspace();
    try {
      const run = await runCli(bin, ["-p", "hi"], {
        cwd: workspace.folder,
        env: claudeEnvironment(tap.url, "not-a-client-key-0123456789"),
      });
      const posts = tap.exchanges.filter((call) => call.method === "POST");
      expect(run.code !== 0, `exit ${run.code}: ${run.stdout.trim()}`);
      expect(posts.length === 1 && posts[0].status === 401, `calls: ${callsOf(posts).join(", ")}`);
      expect(posts[0].responseHeaders["x-should-retry"] === "false", "the 401 lacks x-should-retry: false");
      expect(run.ms < 15_000, `took ${run.ms} ms`);
      return `${run.ms} ms; "${run.stdout.trim() || run.stderr.trim()}"; calls: ${summaryOf(tap.exchanges)}`;
    } finally {
      await tap.close();
    }
  });
}

/** One `codex exec` tool turn; `setup` may log in. Returns the run and the tap's calls. */
async function codexTurn(bin, conduit, { provider, path, model, extraArgs = [] }) {
  const tap = await startRecordingTap(conduit.url);
  const workspace = makeWorkspace();
  try {
    const env = codexEnvironment({ provider, baseUrl: `${tap.url}${path}`, model, clientKey: CLIENT_KEY });
    if (provider === "openai")
      execFileSync(bin, ["login", "--with-api-key"], {
        input: CLIENT_KEY,
        env: { PATH: process.env.PATH, ...env },
        stdio: ["pipe", "ignore", "pipe"],
      });
    const args = ["exec", "--skip-git-repo-check", "--color", "never", ...extraArgs, workspace.prompt];
    const spawnedAt = tap.elapsed();
    const run = await runCli(bin, args, { cwd: workspace.folder, env });
    return { run, workspace, spawnedAt, exchanges: [...tap.exchanges] };
  } finally {
    await tap.close();
  }
}

function expectCodexAnswer({ run, workspace, exchanges }) {
  expect(run.code === 0, `exit ${run.code}: ${run.stderr.trim().split("\n").slice(-3).join(" | ")}`);
  expect(run.stdout.includes(workspace.answer), `stdout lacks the final answer: ${run.stdout.trim()}`);
  const posts = exchanges.filter((call) => call.method === "POST");
  expect(posts.length >= 2 && posts.every((call) => call.status === 200), `not every POST got 200: ${callsOf(posts).join(", ")}`);
}

// Codex 0.171 runs with its defaults: it sends a `namespace` tool (multi_agent_v1) and the hosted
// `web_search` tool, which /v1/responses flattens and runs as Claude's web search.
async function codexChecks(bin, conduit, command, anthropic) {
  await check(`codex exec (custom provider, /v1/responses → Claude, default tools) through conduit ${command}`, async () => {
    const before = anthropic.requests.length;
    const turn = await codexTurn(bin, conduit, { provider: "conduit", path: "/v1", model: "claude-sonnet-4-5" });
    expectCodexAnswer(turn);
    const upstream = anthropic.requests.slice(before);
    const sawResult = upstream.some((request) => request.body.includes('"tool_result"') && request.body.includes("pineapple-42"));
    expect(sawResult, "the Messages upstream never saw exec_command's output as a tool_result");
    const first = upstream[0]?.body ?? "";
    expect(first.includes('"web_search_20250305"'), "the hosted web_search tool did not reach Claude as its web search tool");
    expect(first.includes("multi_agent_v1__"), "the multi_agent_v1 namespace tools did not reach Claude flattened");
    if (command === "proxy") recordings.codex["responses-tool-turn"] = sessionOf(turn.exchanges, upstream, { translated: true });
    return `${turn.run.ms} ms; calls: ${summaryOf(turn.exchanges)}`;
  });
  if (command !== "proxy") return; // the codex route is mounted by `conduit proxy` only
  await check("codex exec (custom provider, /backend-api/codex) through conduit proxy", async () => {
    const turn = await codexTurn(bin, conduit, { provider: "conduit", path: "/backend-api/codex", model: "gpt-5-codex" });
    expectCodexAnswer(turn);
    return `${turn.run.ms} ms; calls: ${summaryOf(turn.exchanges)}`;
  });
  await check("codex exec (built-in openai provider, openai_base_url at /backend-api/codex) through conduit proxy", async () => {
    const turn = await codexTurn(bin, conduit, { provider: "openai", path: "/backend-api/codex", model: "gpt-5-codex" });
    expectCodexAnswer(turn);
    const upgrades = turn.exchanges.filter((call) => call.upgrade);
    // The cost of the WebSocket attempts: how long into the run the first HTTP request came.
    const firstPost = turn.exchanges.find((call) => call.method === "POST");
    return `${turn.run.ms} ms, ${upgrades.length} WebSocket attempts, first HTTP POST ${firstPost ? firstPost.at - turn.spawnedAt : "?"} ms after the start; calls: ${summaryOf(turn.exchanges)}`;
  });
}

const anthropic = await startFakeAnthropicAgent({ apiKey: ANTHROPIC_KEY });
const codexBackend = await startFakeCodexAgent({ accessToken: CODEX_TOKEN });
const proxy = {
  enabled: true,
  upstream: { anthropic: anthropic.url, codex: codexBackend.url },
  clientKeys: [CLIENT_KEY],
  accounts: [
    { id: "claude-pool", type: "api-key", apiKey: ANTHROPIC_KEY },
    { id: "codex-pool", vendor: "codex", type: "api-key", apiKey: CODEX_TOKEN },
  ],
};
// `--install-only`: CI installs the pinned versions in the background while it builds, then runs the checks.
if (options["install-only"]) {
  installClients();
  process.exit(0);
}

try {
  const bins = installClients();
  log(
    `Claude Code ${execFileSync(bins.claude, ["--version"], { encoding: "utf8" }).trim()}, ${execFileSync(bins.codex, ["--version"], { encoding: "utf8" }).trim()}`,
  );
  for (const command of options.only === "mcp" ? [] : ["proxy", "serve"]) {
    const conduit = await startConduit(root, command, { proxy });
    try {
      if (options.only !== "codex") await claudeChecks(bins.claude, conduit, command, anthropic);
      if (options.only !== "codex" && command === "proxy") await claudeWrongKeyCheck(bins.claude, conduit, command);
      if (options.only !== "claude") await codexChecks(bins.codex, conduit, command, anthropic);
    } finally {
      await conduit.stop();
    }
  }
  await mcpGatewayChecks({ root, bins, anthropic, proxy, runner, only: options.only === "mcp" ? undefined : options.only });
} catch (error) {
  runner.fail("setup", error);
} finally {
  await anthropic.close();
  await codexBackend.close();
}
if (options.record) {
  writeSessions(
    join(options.record, "claude-code-sessions.json"),
    `Claude Code ${CLIENTS["@anthropic-ai/claude-code"]}`,
    recordings.claude,
  );
  writeSessions(join(options.record, "codex-sessions.json"), `Codex CLI ${CLIENTS["@openai/codex"]}`, recordings.codex);
  log(`recorded ${[...Object.keys(recordings.claude), ...Object.keys(recordings.codex)].join(", ")} in ${options.record}`);
}
runner.finish();
