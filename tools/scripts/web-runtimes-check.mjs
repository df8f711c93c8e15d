#!/usr/bin/env node
// The fetch entry on real web runtimes: `@conduit-ai/adapter-hono/fetch` is meant to run
// on Bun, Deno and Cloudflare Workers. This bundles `web-runtimes/echo-worker.mjs` — the built
// packages, as a user's bundler would see them — with esbuild, serves the bundle on each runtime
// and drives it over HTTP: health, a success envelope, a validation error, a 404, an SSE stream and
// the UI message stream. Workers run in workerd, Cloudflare's own runtime, at the first
// compatibility date with `nodejs_compat` v2 (2024-09-23), so a Node built-in Workers gained only
// later fails here. The runtimes are installed from npm into a scratch folder, pinned below.
//
// Usage: node tools/scripts/web-runtimes-check.mjs [--keep] [--compatibility-date 2024-09-23]
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const fixtures = join(root, "tools/scripts/web-runtimes");
const { values: options } = parseArgs({
  options: { keep: { type: "boolean" }, "compatibility-date": { type: "string", default: "2024-09-23" } },
});
const RUNTIMES = { bun: "1.4.5", deno: "2.9.6", workerd: "1.20261117.1" };
const READY_TIMEOUT_MS = 20_000;

const pnpm = process.env.CONDUIT_PNPM ? JSON.parse(process.env.CONDUIT_PNPM) : ["pnpm"];
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
const log = (message) => console.log(`web-runtimes: ${message}`);

/** A free loopback port (workerd takes its address from the config, not from port 0). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

function workerdConfig(port, compatibilityDate) {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .conduit)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);

const conduit :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.mjs")],
  compatibilityDate = "${compatibilityDate}",
  compatibilityFlags = ["nodejs_compat"],
);
`;
}

/** Starts a runtime; resolves with its base URL once it answers, rejects with its output if it exits. */
async function start(name, workspace) {
  const bin = (tool) => join(workspace, "node_modules", ".bin", tool);
  let port;
  let command;
  if (name === "workerd") {
    port = await freePort();
    writeFileSync(join(workspace, "workerd.capnp"), workerdConfig(port, options["compatibility-date"]));
    command = [bin("workerd"), "serve", "workerd.capnp"];
  } else if (name === "bun") command = [bin("bun"), "serve-bun.mjs"];
  else command = [bin("deno"), "run", "--allow-net", "serve-deno.mjs"];

  const child = spawn(command[0], command.slice(1), {
    cwd: workspace,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${output.trim()}`);
    port ??= Number(/listening on (\d+)/.exec(output)?.[1]) || undefined;
    if (port !== undefined) {
      const answered = await fetch(`http://127.0.0.1:${port}/health/live`).then(
        () => true,
        () => false,
      );
      if (answered)
        return {
          base: `http://127.0.0.1:${port}`,
          output: () => output,
          stop: () => {
            child.kill("SIGKILL");
            return exited;
          },
        };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`${name} did not answer within ${READY_TIMEOUT_MS} ms: ${output.trim()}`);
}

function expectEqual(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const postJson = (base, path, body) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** What every runtime must answer exactly as Node does. */
async function checkConduit(base) {
  const health = await fetch(`${base}/health`);
  const healthBody = await health.json();
  expectEqual([health.status, healthBody.status], [200, "ok"], "GET /health");
  // Workers read the clock as 0 at module scope: an uptime counted from there is decades long.
  if (!(healthBody.uptime >= 0 && healthBody.uptime < 600)) throw new Error(`GET /health: uptime ${healthBody.uptime} s`);

  const generated = await postJson(base, "/api/agent/generate", { input: { text: "hi" } });
  const envelope = await generated.json();
  expectEqual([generated.status, envelope.data?.content], [200, "echo: hi"], "POST /api/agent/generate");
  expectEqual(generated.headers.get("x-request-id"), envelope.metadata?.requestId, "x-request-id matches metadata.requestId");

  const malformed = await postJson(base, "/api/agent/generate", "{");
  expectEqual([malformed.status, (await malformed.json()).error?.code], [400, "VALIDATION_ERROR"], "malformed JSON");
  const missing = await fetch(`${base}/nowhere`);
  expectEqual([missing.status, (await missing.json()).error?.code], [404, "ROUTE_NOT_FOUND"], "unknown path");

  const sse = await postJson(base, "/api/agent/stream", { input: { text: "hi" } });
  expectEqual(sse.headers.get("content-type")?.split(";")[0], "text/event-stream", "stream content type");
  const events = [...(await sse.text()).matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
  expectEqual(events, ["text-start", "text-delta", "text-end", "finish"], "SSE events");

  const ui = await postJson(base, "/api/agent/stream?format=ui-message", { input: { text: "hi" } });
  expectEqual(ui.headers.get("x-vercel-ai-ui-message-stream"), "v1", "UI message stream header");
  const uiText = await ui.text();
  if (!uiText.includes('"delta":"hi"') || !uiText.trimEnd().endsWith("data: [DONE]")) throw new Error(`UI message stream: ${uiText}`);
}

const workspace = mkdtempSync(join(tmpdir(), "conduit-web-runtimes-"));
let failed = false;
try {
  log("building server-core and adapter-hono");
  run(pnpm[0], [...pnpm.slice(1), "--filter", "@conduit-ai/server-core", "--filter", "@conduit-ai/adapter-hono", "run", "build"], root);

  // Built packages, no `@conduit-ai/source` condition: what a Worker's bundler resolves.
  const { build } = createRequire(join(root, "packages/adapter-hono/package.json"))("esbuild");
  await build({
    entryPoints: [join(fixtures, "echo-worker.mjs")],
    nodePaths: [join(root, "packages/conformance/node_modules")],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    outfile: join(workspace, "worker.mjs"),
    logLevel: "error",
  });
  for (const file of ["serve-bun.mjs", "serve-deno.mjs"]) copyFileSync(join(fixtures, file), join(workspace, file));

  const specs = Object.entries(RUNTIMES).map(([name, version]) => `${name}@${version}`);
  log(`installing ${specs.join(" ")}`);
  writeFileSync(join(workspace, "package.json"), JSON.stringify({ name: "conduit-web-runtimes", private: true }));
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...specs], workspace);

  for (const name of Object.keys(RUNTIMES)) {
    const started = Date.now();
    let server;
    try {
      server = await start(name, workspace);
      await checkConduit(server.base);
      log(`${name}: ok (${Date.now() - started} ms)`);
    } catch (error) {
      failed = true;
      log(`${name}: FAILED — ${error.message}`);
      if (server) console.error(server.output());
    } finally {
      await server?.stop();
    }
  }
} catch (error) {
  failed = true;
  console.error(`web-runtimes: FAILED — ${error.message}`);
  if (error.stderr) console.error(String(error.stderr));
} finally {
  if (options.keep) log(`kept ${workspace}`);
  else rmSync(workspace, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;
else
  log(
    `Bun ${RUNTIMES.bun}, Deno ${RUNTIMES.deno} and workerd ${RUNTIMES.workerd} (compatibility date ${options["compatibility-date"]}) serve the fetch entry`,
  );
