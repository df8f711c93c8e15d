// The MCP gateway with the real CLIs: `conduit serve` with governance (a virtual key)
// and `mcpGateway` over server-everything (stdio); Claude Code adds it with `claude mcp add
// --transport http … --header "Authorization: Bearer <virtual key>"` and Codex CLI with an
// `[mcp_servers.conduit]` table; each is asked to call the echo tool, and the fake model must see
// the tool's result. A recording tap in front of Conduit lists every MCP method each client called.
import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { callsOf, expect, summaryOf } from "./check-runner.mjs";
import { startConduit } from "./conduit-process.mjs";
import { startRecordingTap } from "./recording-tap.mjs";
import { claudeEnvironment, codexEnvironment, makeWorkspace, runCli } from "./run-cli.mjs";

const ADMIN_KEY = "real-clients-mcp-admin-key-0123456789abcdef";
const SECRET = "The secret word is pineapple-42.";
const promptFor = (tool) => `Please call the tool ${tool} with ${JSON.stringify({ message: SECRET })} and tell me the secret word.`;

/** "initialize → 200, tools/list → 200, …": the MCP methods a client POSTed, with their answers. */
function mcpMethodsOf(exchanges) {
  return exchanges
    .filter((call) => call.url.startsWith("/mcp"))
    .map((call) => {
      if (call.method !== "POST") return `${call.method} /mcp → ${call.status}`;
      let method = "?";
      try {
        method = JSON.parse(call.requestBody ?? "{}").method ?? "(response)";
      } catch {}
      return `${method} → ${call.status}`;
    });
}

function summaryOfMethods(methods) {
  const counts = new Map();
  for (const method of methods) counts.set(method, (counts.get(method) ?? 0) + 1);
  return [...counts].map(([method, count]) => `${count}× ${method}`).join(", ");
}

/** Did the fake model get a tool_result carrying the echoed secret (the MCP tool's answer)? */
const sawToolResult = (requests) =>
  requests.some((request) => request.body.includes('"tool_result"') && request.body.includes("pineapple-42"));

export async function mcpGatewayChecks({ root, bins, anthropic, proxy, runner, only }) {
  const everything = join(
    dirname(createRequire(join(root, "packages/fakes/package.json")).resolve("@modelcontextprotocol/server-everything/package.json")),
    "dist",
    "index.js",
  );
  const config = {
    proxy: { ...proxy, clientKeys: undefined },
    keys: { store: "memory" },
    admin: { keys: [ADMIN_KEY] },
    mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } },
    mcpGateway: { enabled: true },
  };
  const conduit = await startConduit(root, "serve", config);
  try {
    const minted = await fetch(`${conduit.url}/admin/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "real-clients-mcp" }),
    });
    const key = (await minted.json()).data.key;
    if (only !== "codex")
      await runner.check(
        "claude mcp add --transport http conduit …/mcp, then claude -p calls everything__echo through the gateway",
        async () => {
          const tap = await startRecordingTap(conduit.url);
          const workspace = makeWorkspace();
          const before = anthropic.requests.length;
          try {
            const env = { ...claudeEnvironment(tap.url, key), ENABLE_TOOL_SEARCH: "false" };
            const cliEnv = { PATH: process.env.PATH, LANG: "C.UTF-8", ...env };
            execFileSync(
              bins.claude,
              ["mcp", "add", "--transport", "http", "conduit", `${tap.url}/mcp`, "--header", `Authorization: Bearer ${key}`],
              {
                cwd: workspace.folder,
                env: cliEnv,
                stdio: ["ignore", "pipe", "pipe"],
              },
            );
            const run = await runCli(
              bins.claude,
              ["-p", promptFor("everything__echo"), "--allowedTools", "mcp__conduit__everything__echo"],
              { cwd: workspace.folder, env },
            );
            expect(run.code === 0, `exit ${run.code}: ${run.stderr.trim() || run.stdout.trim()}`);
            expect(run.stdout.includes("pineapple-42"), `stdout lacks the secret word: ${run.stdout.trim()}`);
            const methods = mcpMethodsOf(tap.exchanges);
            expect(
              methods.some((method) => method === "tools/call → 200"),
              `no tools/call reached the gateway: ${methods.join(", ") || callsOf(tap.exchanges).join(", ")}`,
            );
            expect(sawToolResult(anthropic.requests.slice(before)), "the fake model never saw the MCP tool's result");
            return `${run.ms} ms; MCP: ${summaryOfMethods(methods)}; all calls: ${summaryOf(tap.exchanges)}`;
          } finally {
            await tap.close();
          }
        },
      );
    if (only !== "claude")
      await runner.check(
        "codex exec with [mcp_servers.conduit] (url + bearer_token_env_var) calls everything__echo through the gateway",
        async () => {
          const tap = await startRecordingTap(conduit.url);
          const workspace = makeWorkspace();
          const before = anthropic.requests.length;
          try {
            const env = {
              ...codexEnvironment({ provider: "conduit", baseUrl: `${tap.url}/v1`, model: "claude-sonnet-4-5", clientKey: key }),
              CONDUIT_MCP_TOKEN: key,
            };
            appendFileSync(
              join(env.CODEX_HOME, "config.toml"),
              `\n[mcp_servers.conduit]\nurl = "${tap.url}/mcp"\nbearer_token_env_var = "CONDUIT_MCP_TOKEN"\n`,
            );
            const run = await runCli(bins.codex, ["exec", "--skip-git-repo-check", "--color", "never", promptFor("everything__echo")], {
              cwd: workspace.folder,
              env,
            });
            expect(run.code === 0, `exit ${run.code}: ${run.stderr.trim().split("\n").slice(-3).join(" | ")}`);
            expect(run.stdout.includes("pineapple-42"), `stdout lacks the secret word: ${run.stdout.trim()}`);
            const methods = mcpMethodsOf(tap.exchanges);
            expect(
              methods.some((method) => method === "tools/call → 200"),
              `no tools/call reached the gateway: ${methods.join(", ") || callsOf(tap.exchanges).join(", ")}`,
            );
            expect(sawToolResult(anthropic.requests.slice(before)), "the fake model never saw the MCP tool's result");
            return `${run.ms} ms; MCP: ${summaryOfMethods(methods)}; all calls: ${summaryOf(tap.exchanges)}`;
          } finally {
            await tap.close();
          }
        },
      );
  } finally {
    await conduit.stop();
  }
}
