// Builds dist/: declarations with tsc, code with esbuild — the entry points (`.` and its subpaths)
// as one ESM graph with shared chunks, so an import parses a few files, not a hundred.
//
// Every package import stays external (the consumer's own zod, pino, … are used) except INLINED:
// two small CommonJS dependencies needed while the config is resolved. Inlined, they load as part of
// the ESM graph; left external, the first `import` of one starts Node's CommonJS loader, which cost
// about 10 ms of a ~30 ms import (`pnpm footprint`). They are devDependencies for that reason.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";

const INLINED = new Set(["bytes", "proxy-addr"]);
/** One per `exports` subpath of package.json. */
const ENTRY_POINTS = [
  "index",
  "middleware/index",
  "internal/index",
  "metrics/index",
  "openapi/index",
  "node/index",
  "web/index",
  "pricing/index",
  "testing/index",
].map((entry) => `src/${entry}.ts`);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageName = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

const externalPackages = {
  name: "external-packages",
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      // The inlined packages' own dependencies (forwarded, ipaddr.js) come along with them.
      const insideInlined = args.importer.includes("/node_modules/");
      if (args.kind === "entry-point" || insideInlined || INLINED.has(packageName(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

rmSync("dist", { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--emitDeclarationOnly"], { stdio: "inherit" });
await build({
  entryPoints: ENTRY_POINTS,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  plugins: [externalPackages],
  sourcemap: true,
  sourcesContent: false,
  outdir: "dist",
  outbase: "src",
  logLevel: "warning",
});
