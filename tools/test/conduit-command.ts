// How tests start a `conduit` process: `node packages/cli/dist/bin.js` when the build of every
// workspace package it loads is at least as new as that package's sources (CI builds before it
// tests), otherwise from source through tsx, as `pnpm conduit` does. From source a process spends
// about 2 s of CPU transpiling and loading the workspace before the command runs (under 1 s from
// dist), and the CLI's and the conformance suites start a few hundred: that was the largest CPU cost
// of CI's tests. A stale build is never used: an edited source file, or a package without a build,
// falls back to tsx.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const packagesFolder = join(root, "packages");
const sourceBin = join(packagesFolder, "cli", "src", "bin.ts");
const builtBin = join(packagesFolder, "cli", "dist", "bin.js");

/** The newest modification time under `folder` (0 when it is missing), skipping tests and their helpers, which no build reads. */
function newestChange(folder: string): number {
  if (!existsSync(folder)) return 0;
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || /\.test\.tsx?$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    if (path.includes(join("src", "test-support"))) continue;
    newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Every workspace package `conduit` loads: the CLI and its `@conduit-ai/*` dependencies, transitively (folder → manifest file). */
function workspaceClosure(): Map<string, string> {
  const folderOf = new Map<string, string>();
  for (const folder of readdirSync(packagesFolder)) {
    const manifestFile = join(packagesFolder, folder, "package.json");
    if (existsSync(manifestFile)) folderOf.set((JSON.parse(readFileSync(manifestFile, "utf8")) as { name: string }).name, folder);
  }
  const reached = new Map<string, string>();
  const pending = ["@conduit-ai/cli"];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const folder = folderOf.get(name);
    if (folder === undefined || reached.has(folder)) continue;
    const manifestFile = join(packagesFolder, folder, "package.json");
    reached.set(folder, manifestFile);
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, Record<string, string> | undefined>;
    pending.push(...Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }));
  }
  return reached;
}

/**
 * Whether each of those packages has a `dist` built after its last source (or manifest) change.
 * `CONDUIT_BUILD_CURRENT=1` (set by .ci/run once its nx build passed) vouches for that instead: outputs
 * nx restores from its cache keep the times they were built at, older than a fresh clone's sources.
 */
function everyBuildCurrent(): boolean {
  const vouched = process.env.CONDUIT_BUILD_CURRENT === "1";
  for (const [folder, manifestFile] of workspaceClosure()) {
    const built = newestChange(join(packagesFolder, folder, "dist"));
    if (vouched && built > 0) continue;
    const changed = Math.max(newestChange(join(packagesFolder, folder, "src")), statSync(manifestFile).mtimeMs);
    if (built < changed) return false;
  }
  return existsSync(builtBin);
}

let chosen: string[] | undefined;

/**
 * The arguments after `node` that run `conduit`: the built bin when the build is current, else the
 * source bin through tsx (`CONDUIT_TEST_FROM_SOURCE=1` forces the source). Decided once per test worker.
 *
 * @example
 * spawn(process.execPath, [...conduitCommand(), "serve", "--port", "0"]);
 */
export function conduitCommand(): string[] {
  chosen ??=
    process.env.CONDUIT_TEST_FROM_SOURCE !== "1" && everyBuildCurrent()
      ? [builtBin]
      : ["--conditions=@conduit-ai/source", "--import", "tsx", sourceBin];
  return chosen;
}
