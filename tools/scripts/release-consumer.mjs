// The scratch consumer of the release dry run (tools/scripts/release-check.mjs): one project per
// adapter, holding only the packed server-core and that adapter (npm brings the framework as a
// peer). Its source is strict TypeScript, type-checked against the published `.d.ts` with
// `moduleResolution: nodenext` and with `bundler`, compiled, started, and called over HTTP.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export const ADAPTERS = ["hono", "express", "fastify", "koa"];

/** The consumer's program: a server on an ephemeral port, one route and one metric of its own, three calls, one JSON line. */
function consumerSource(framework) {
  return `import { VERSION, createServer } from "@conduit-ai/server-core";
import { getServerMetrics } from "@conduit-ai/server-core/metrics";
import { createAdapter } from "@conduit-ai/adapter-${framework}";

// The adapter's own entry point must resolve and type-check too.
const adapterFactory: typeof createAdapter = createAdapter;

const server = await createServer(undefined, {
  framework: "${framework}",
  // /api/metrics answers an admin or a scraper's token only (the default): the consumer sets a token.
  config: { port: 0, host: "127.0.0.1", logging: { enabled: false }, metrics: { token: "release-consumer-metrics-token" } },
});
server.registerRoute({ method: "GET", path: "/hello/:name", handler: (ctx) => ({ hello: ctx.params.name }) });
// A metric of the consumer's own, on the server's registry (the core writes the exposition).
const greetings = getServerMetrics(server)?.registry.counter({ name: "consumer_greetings_total", help: "Greetings", labelNames: ["name"] });
server.registerMiddleware({ name: "count-greetings", paths: ["/hello/*"], handler: async (ctx, next) => { greetings?.inc({ name: "any" }); await next(); } });
await server.start();
const port: number | undefined = server.address()?.port;
if (port === undefined) throw new Error("the server has no address");

async function getJson(path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(\`http://127.0.0.1:\${port}\${path}\`);
  return { status: response.status, body: await response.json() };
}

const health = await getJson("/health");
const hello = await getJson("/api/hello/ada");
const metrics = await (await fetch(\`http://127.0.0.1:\${port}/api/metrics\`, { headers: { authorization: "Bearer release-consumer-metrics-token" } })).text();
await server.stop();
console.log(JSON.stringify({ framework: server.framework, version: VERSION, adapterFactory: typeof adapterFactory, health, hello, metrics }));
`;
}

const STRICT = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: false,
  types: ["node"],
  target: "ES2022",
  lib: ["ES2022", "DOM"],
};
const TSCONFIGS = {
  "tsconfig.nodenext.json": {
    compilerOptions: { ...STRICT, module: "NodeNext", moduleResolution: "NodeNext", outDir: "out" },
    files: ["consumer.ts"],
  },
  "tsconfig.bundler.json": {
    compilerOptions: { ...STRICT, module: "ESNext", moduleResolution: "Bundler", noEmit: true },
    files: ["consumer.ts"],
  },
};

/**
 * Creates the consumer for `framework` in `directory`, installs the tarballs with npm,
 * type-checks it both ways, runs it and checks what it saw. Resolves to a one-line summary.
 */
export async function checkConsumer({ framework, directory, tarballs, typescriptCompiler, typesNodeRange }) {
  mkdirSync(directory, { recursive: true });
  const adapterName = `@conduit-ai/adapter-${framework}`;
  writeFileSync(
    join(directory, "package.json"),
    `${JSON.stringify({ name: `consumer-${framework}`, private: true, type: "module" }, null, 2)}\n`,
  );
  writeFileSync(join(directory, "consumer.ts"), consumerSource(framework));
  for (const [file, content] of Object.entries(TSCONFIGS)) writeFileSync(join(directory, file), `${JSON.stringify(content, null, 2)}\n`);
  const npmArguments = ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];
  await run("npm", [...npmArguments, tarballs["@conduit-ai/server-core"], tarballs[adapterName], `@types/node@${typesNodeRange}`], {
    cwd: directory,
  });

  for (const tsconfig of Object.keys(TSCONFIGS)) {
    try {
      await run(process.execPath, [typescriptCompiler, "-p", tsconfig], { cwd: directory });
    } catch (error) {
      throw new Error(`${framework} consumer does not type-check with ${tsconfig}:\n${error.stdout}${error.stderr}`);
    }
  }
  const { stdout: output } = await run(process.execPath, ["out/consumer.js"], { cwd: directory, timeout: 60_000 });
  const result = JSON.parse(output.trim().split("\n").at(-1));
  const installedCore = JSON.parse(readFileSync(join(directory, "node_modules/@conduit-ai/server-core/package.json"), "utf8"));
  const problems = [];
  if (result.framework !== framework) problems.push(`framework is ${result.framework}`);
  if (result.health.status !== 200 || result.health.body?.status !== "ok")
    problems.push(`/health answered ${JSON.stringify(result.health)}`);
  // The version the server reports is the one in the published manifest (stamped at build time).
  if (result.health.body?.version !== installedCore.version || result.version !== installedCore.version)
    problems.push(`reports version ${result.health.body?.version} / VERSION ${result.version}, package.json says ${installedCore.version}`);
  if (result.hello.status !== 200 || result.hello.body?.data?.hello !== "ada")
    problems.push(`/api/hello/ada answered ${JSON.stringify(result.hello)}`);
  for (const line of [
    'conduit_http_requests_total{method="GET",route="/api/hello/:name",status="200"} 1',
    'consumer_greetings_total{name="any"} 1',
  ]) {
    if (!result.metrics.split("\n").includes(line)) problems.push(`/api/metrics lacks ${line}:\n${result.metrics}`);
  }
  if (problems.length > 0) throw new Error(`${framework} consumer: ${problems.join("; ")}`);
  return `${framework}: nodenext + bundler type-check, GET /health 200 (version ${installedCore.version}), GET /api/hello/ada 200, GET /api/metrics`;
}
