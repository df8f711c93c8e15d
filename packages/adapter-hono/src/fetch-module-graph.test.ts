import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/**
 * The `./fetch` entry must run on web-standard runtimes: its module graph (Conduit's own code
 * and hono, bundled the way a Workers bundler would) may use only Node built-ins that Bun, Deno
 * and Cloudflare Workers (`nodejs_compat`, from its first compatibility date, 2024-09-23) all
 * provide — none of Node's server, network or process modules (`node:http`, `node:net`…), nor
 * `node:perf_hooks` or `node:fs`, which Workers gained only at 2025–26 compatibility dates. No `@hono/node-server`.
 * `tools/scripts/web-runtimes-check.mjs` runs the bundle itself on Bun, Deno and workerd.
 * Third-party packages other than hono are left external: keeping them lazy is the light core's
 * work (the list is checked here only for the Node server package).
 */
const WEB_RUNTIME_BUILTINS = new Set([
  "node:events",
  "node:crypto",
  "node:util",
  "node:zlib",
  "node:buffer",
  // The docs page only (assets read from the installed swagger-ui-dist): a file system exists on
  // Bun and Deno, and Workers' nodejs_compat provides these modules.
  "node:fs/promises",
  "node:path",
  "node:module",
  "node:url",
]);
const builtins = new Set(builtinModules);

async function graphOf(entry: string) {
  const nodeBuiltins = new Map<string, Set<string>>();
  const externalPackages = new Set<string>();
  await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    write: false,
    platform: "neutral",
    format: "esm",
    conditions: ["@conduit-ai/source"],
    mainFields: ["module", "main"],
    logLevel: "silent",
    plugins: [
      {
        name: "record-externals",
        setup(builder) {
          builder.onResolve({ filter: /^[^./]/ }, (args) => {
            const name = args.path.startsWith("node:") ? args.path : `node:${args.path}`;
            if (args.path.startsWith("node:") || builtins.has(args.path)) {
              nodeBuiltins.set(name, (nodeBuiltins.get(name) ?? new Set()).add(args.importer.split("/packages/").pop() ?? args.importer));
              return { path: args.path, external: true };
            }
            if (args.path.startsWith("@conduit-ai/") || args.path === "hono" || args.path.startsWith("hono/")) return undefined;
            externalPackages.add(
              args.path.startsWith("@") ? args.path.split("/").slice(0, 2).join("/") : (args.path.split("/")[0] as string),
            );
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return { nodeBuiltins, externalPackages };
}

describe("the fetch entry's module graph", () => {
  it("uses only Node built-ins every web-standard runtime provides, and no Node server package", async () => {
    const { nodeBuiltins, externalPackages } = await graphOf("./fetch.ts");
    const offending = [...nodeBuiltins]
      .filter(([name]) => !WEB_RUNTIME_BUILTINS.has(name))
      .map(([name, importers]) => `${name} ← ${[...importers].join(", ")}`);
    expect(offending).toEqual([]);
    expect(externalPackages.has("@hono/node-server")).toBe(false);
  });

  it("tells the Node entry apart: it does load node:http and @hono/node-server (so the check above can fail)", async () => {
    const { nodeBuiltins, externalPackages } = await graphOf("./index.ts");
    expect(nodeBuiltins.has("node:http")).toBe(true);
    expect(externalPackages.has("@hono/node-server")).toBe(true);
  });
});
