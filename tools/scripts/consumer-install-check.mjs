#!/usr/bin/env node
// Consumer install check: what a user of `@conduit-ai/adapter-express` gets from npm.
// Builds server-core and adapter-express, packs them with `pnpm pack` (which rewrites
// `workspace:^` to real versions), installs the tarballs plus express with npm into an empty
// temporary project, starts a server from a plain ESM script and calls it over HTTP. Then it
// asserts that no other framework was installed (`hono`, `fastify`, `koa`) and that asking
// for `framework: "fastify"` raises MissingDependencyError naming the package to add. Light core
// the docs' optional peers (swagger-ui-dist, yaml) are not installed, and
// `enableSwagger: true` raises MissingDependencyError with the npm install line to run.
//
// Usage: node tools/scripts/consumer-install-check.mjs [--keep]   (exit code 0 = pass)
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const keep = process.argv.includes("--keep");
const PACKAGES = [
  { name: "@conduit-ai/server-core", directory: "packages/server-core" },
  { name: "@conduit-ai/adapter-express", directory: "packages/adapter-express" },
];
const ABSENT = ["hono", "@hono/node-server", "fastify", "koa", "@koa/router", "swagger-ui-dist", "yaml", "ioredis"];

/** The pnpm the quick start resolved (`CONDUIT_PNPM`, a JSON argv), else the one on PATH. */
const pnpm = process.env.CONDUIT_PNPM ? JSON.parse(process.env.CONDUIT_PNPM) : ["pnpm"];
const runPnpm = (args, cwd) => run(pnpm[0], [...pnpm.slice(1), ...args], cwd);
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
const step = (message) => console.log(`consumer-install: ${message}`);

/** The consumer's script: plain ESM against the installed packages, printing one JSON line. */
const CONSUMER_SCRIPT = `
import { createServer, MissingDependencyError, registerAllRoutes } from "@conduit-ai/server-core";
const server = await createServer(undefined, { framework: "express", config: { port: 0, host: "127.0.0.1", logging: { enabled: false } } });
await server.start();
const { port } = server.getStatus();
const response = await fetch(\`http://127.0.0.1:\${port}/health\`);
const health = { status: response.status, body: await response.json() };
await server.stop();
let missing;
try {
  await createServer(undefined, { framework: "fastify" });
  missing = { raised: false };
} catch (error) {
  missing = { raised: true, isMissingDependency: MissingDependencyError.isInstance?.(error) ?? error instanceof MissingDependencyError, code: error.code, message: error.message };
}
let docs;
try {
  const docsServer = await createServer(undefined, { framework: "express", config: { enableSwagger: true, logging: { enabled: false } } });
  registerAllRoutes(docsServer);
  docs = { raised: false };
} catch (error) {
  docs = { raised: true, code: error.code, message: error.message };
}
console.log(JSON.stringify({ framework: server.framework, health, missing, docs }));
`;

function check(condition, message) {
  if (!condition) throw new Error(message);
}

const workspace = mkdtempSync(join(tmpdir(), "conduit-consumer-"));
try {
  step("building server-core and adapter-express");
  runPnpm([...PACKAGES.flatMap((item) => ["--filter", item.name]), "run", "build"], root);

  step("packing with pnpm pack");
  const tarballs = PACKAGES.map((item) => {
    const before = new Set(readdirSync(workspace));
    runPnpm(["pack", "--pack-destination", workspace], join(root, item.directory));
    const created = readdirSync(workspace).find((file) => file.endsWith(".tgz") && !before.has(file));
    check(created, `pnpm pack produced no tarball for ${item.name}`);
    return join(workspace, created);
  });

  step("installing the tarballs and express with npm into an empty project");
  const project = join(workspace, "consumer");
  run("mkdir", ["-p", project], workspace);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "conduit-consumer", private: true, type: "module" }, null, 2));
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...tarballs, "express@^5"], project);

  step("starting a server from a plain ESM script");
  writeFileSync(join(project, "main.mjs"), CONSUMER_SCRIPT);
  const output = run(process.execPath, ["main.mjs"], project).trim().split("\n").at(-1);
  const result = JSON.parse(output);

  check(result.framework === "express", `expected an express server, got ${result.framework}`);
  check(result.health.status === 200 && result.health.body.status === "ok", `GET /health answered ${JSON.stringify(result.health)}`);
  const present = ABSENT.filter((name) => existsSync(join(project, "node_modules", name)));
  check(present.length === 0, `other frameworks were installed: ${present.join(", ")}`);
  check(
    result.missing.raised && result.missing.isMissingDependency,
    `framework "fastify" did not raise MissingDependencyError: ${JSON.stringify(result.missing)}`,
  );
  check(result.missing.code === "MISSING_DEPENDENCY", `unexpected code ${result.missing.code}`);
  check(
    /@conduit-ai\/adapter-fastify/.test(result.missing.message) && /fastify/.test(result.missing.message),
    `message does not name the package: ${result.missing.message}`,
  );
  check(
    result.docs.raised && result.docs.code === "MISSING_DEPENDENCY",
    `enableSwagger without swagger-ui-dist did not raise MissingDependencyError: ${JSON.stringify(result.docs)}`,
  );
  check(
    /npm install swagger-ui-dist yaml/.test(result.docs.message),
    `docs message does not give the npm install line: ${result.docs.message}`,
  );
  step(
    `ok — GET /health ${result.health.status}; absent: ${ABSENT.join(", ")}; fastify → "${result.missing.message}"; docs → "${result.docs.message}"`,
  );
} catch (error) {
  console.error(`consumer-install: FAILED — ${error.message}`);
  if (error.stderr) console.error(String(error.stderr));
  if (error.stdout) console.error(String(error.stdout));
  process.exitCode = 1;
} finally {
  if (keep) step(`kept ${workspace}`);
  else rmSync(workspace, { recursive: true, force: true });
}
