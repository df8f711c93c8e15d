import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as express from "@conduit-ai/adapter-express";
import * as fastify from "@conduit-ai/adapter-fastify";
import * as hono from "@conduit-ai/adapter-hono";
import * as koa from "@conduit-ai/adapter-koa";
import { type AdapterModule, ConfigurationError, type ServerFramework, createServer } from "@conduit-ai/server-core";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { TEST_CONFIG } from "./harness.js";

const MODULES: Array<{ framework: ServerFramework; module: AdapterModule }> = [
  { framework: "hono", module: hono },
  { framework: "express", module: express },
  { framework: "fastify", module: fastify },
  { framework: "koa", module: koa },
];

/** `createServer(runtime, {adapter})`: an adapter imported statically, so bundlers include it. */
describe.each(MODULES)("createServer with a statically imported adapter [$framework]", ({ framework, module }) => {
  it("uses the module given and serves as the named framework does", async () => {
    const server = await createServer(undefined, { adapter: module, config: TEST_CONFIG });
    expect(server.framework).toBe(framework);
    server.registerRoute({ method: "GET", path: "/static", handler: () => ({ static: true }) });
    await server.start();
    try {
      const response = await fetch(`http://127.0.0.1:${server.address()?.port}/api/static`);
      expect((await response.json()).data).toEqual({ static: true });
    } finally {
      await server.stop();
    }
  });

  it("refuses a framework that contradicts the module, and a module that is not an adapter", async () => {
    const other = framework === "hono" ? "koa" : "hono";
    await expect(createServer(undefined, { adapter: module, framework: other, config: TEST_CONFIG })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    await expect(createServer(undefined, { adapter: {} as never })).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe("a bundled server (esbuild)", () => {
  it("includes the statically named adapter: the bundle runs from a folder without node_modules", async () => {
    const folder = await mkdtemp(join(tmpdir(), "conduit-bundle-"));
    try {
      const outfile = join(folder, "server.mjs");
      await build({
        entryPoints: [fileURLToPath(new URL("./fixtures/bundled-server.ts", import.meta.url))],
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        // The workspace's sources (what a consumer's bundler reads from dist).
        conditions: ["@conduit-ai/source"],
        outfile,
        logLevel: "silent",
        // CommonJS dependencies call require() for Node built-ins: give the ESM bundle one.
        banner: {
          js: "import { createRequire as __conduitCreateRequire } from 'node:module'; const require = __conduitCreateRequire(import.meta.url);",
        },
      });
      const child = spawn(process.execPath, [outfile], { cwd: folder, stdio: ["pipe", "pipe", "inherit"] });
      try {
        const [line] = (await once(child.stdout, "data")) as [Buffer];
        const { port } = JSON.parse(line.toString()) as { port: number };
        const response = await fetch(`http://127.0.0.1:${port}/api/bundled`);
        expect((await response.json()).data).toEqual({ bundled: true, framework: "hono" });
      } finally {
        child.stdin.end();
        if (child.exitCode === null) await once(child, "exit");
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
