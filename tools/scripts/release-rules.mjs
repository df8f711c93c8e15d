// The rules of the release dry run (tools/scripts/release-check.mjs): what the version
// plan may do, and what a packed tarball must hold — the manifest a registry page and npm rely on,
// a LICENSE, a README whose links work on the registry, built entry points with the stamped
// version, internal ranges that accept the versions released alongside, and attw's verdict.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const REPOSITORY = "github.com/conduit-ai/conduit";

const tarEntries = (tarball) => execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n").filter(Boolean);
const tarFile = (tarball, entry) => execFileSync("tar", ["-xzOf", tarball, entry], { encoding: "utf8" });

/** Markdown links and images whose target is relative: they break on npmjs.com (no repository base). */
export function relativeLinks(markdown) {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)[^)]*\)/g)].map((match) => match[1]);
  return targets.filter((target) => !/^(https?:|mailto:|#)/.test(target));
}

/** Every file an export entry names, under any condition (the workspace's source condition included). */
const exportTargets = (target) =>
  typeof target === "string" ? [target] : target && typeof target === "object" ? Object.values(target).flatMap(exportTargets) : [];

/**
 * Problems of one packed package. `directory` is its folder in the repository, `releasedVersions`
 * maps every package of this release to its new version, `satisfies` is semver's.
 */
export function tarballProblems({ tarball, directory, releasedVersions, satisfies }) {
  const problems = [];
  const entries = new Set(tarEntries(tarball));
  const manifest = JSON.parse(tarFile(tarball, "package/package.json"));
  for (const required of ["package/LICENSE", "package/README.md"])
    if (!entries.has(required)) problems.push(`missing ${required.slice(8)}`);
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    for (const file of exportTargets(target)) {
      if (!entries.has(`package/${file.replace(/^\.\//, "")}`)) problems.push(`export "${subpath}" points to ${file}, not in the tarball`);
    }
  }
  for (const binary of Object.values(manifest.bin ?? {}))
    if (!entries.has(`package/${binary.replace(/^\.\//, "")}`)) problems.push(`bin ${binary} not in the tarball`);

  if (manifest.license !== "MIT") problems.push(`license is ${manifest.license}`);
  if (!manifest.repository?.url?.includes(REPOSITORY) || manifest.repository?.directory !== directory)
    problems.push(`repository is ${JSON.stringify(manifest.repository)}, expected ${REPOSITORY} with directory ${directory}`);
  if (!manifest.homepage?.startsWith(`https://${REPOSITORY}`)) problems.push(`homepage is ${manifest.homepage}`);
  if (!manifest.bugs?.url?.startsWith(`https://${REPOSITORY}`)) problems.push(`bugs is ${JSON.stringify(manifest.bugs)}`);
  if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) problems.push("no keywords");

  const readme = entries.has("package/README.md") ? tarFile(tarball, "package/README.md") : "";
  const relative = relativeLinks(readme);
  if (relative.length > 0) problems.push(`README links that break on the registry: ${relative.join(", ")}`);

  // Packages with a version module publish the literal from their manifest (stamp-version.mjs).
  if (entries.has("package/dist/version.js")) {
    const stamped = tarFile(tarball, "package/dist/version.js");
    if (!stamped.includes(`export const VERSION = ${JSON.stringify(manifest.version)};`))
      problems.push(`dist/version.js does not hold ${manifest.version}: ${stamped.trim()}`);
  }

  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith("workspace:")) problems.push(`${field}.${name} still says ${range}`);
      else if (releasedVersions[name] && !satisfies(releasedVersions[name], range))
        problems.push(`${field}.${name} ${range} does not accept ${releasedVersions[name]}, released alongside`);
    }
  }
  return { name: manifest.name, version: manifest.version, problems };
}

/**
 * `attw --profile esm-only` for many tarballs in one process (TypeScript loads once): the CLI's
 * own check — every problem counts unless its resolution is one the profile ignores.
 */
export async function attwProblems(toolDirectory, tarballFiles) {
  const require = createRequire(join(toolDirectory, "package.json"));
  const core = await import(pathToFileURL(require.resolve("@arethetypeswrong/core")).href);
  const ignoredResolutions = new Set(["node10", "node16-cjs"]);
  const problems = [];
  for (const tarball of tarballFiles) {
    const analysis = await core.checkPackage(core.createPackageFromTarballData(new Uint8Array(readFileSync(tarball))));
    if (!analysis.types) problems.push(`attw ${tarball.split("/").at(-1)}: the package has no types`);
    const counted = (analysis.problems ?? []).filter((problem) => !ignoredResolutions.has(problem.resolutionKind));
    for (const problem of counted)
      problems.push(
        `attw --profile esm-only ${analysis.packageName}: ${problem.kind} at ${problem.entrypoint ?? "?"} (${problem.resolutionKind ?? "all resolutions"})`,
      );
  }
  return problems;
}

/**
 * Problems of a version plan (package name → version, before and after `changeset version`):
 * a first publish (placeholder `X.Y.Z-0`) must become exactly `X.Y.Z`, and no package may reach
 * a new major unless a changeset asks for one (`bumps`: name → Set of requested bump types) —
 * changesets does that to the dependents of a package whose new version leaves their peer range.
 */
export function versionPlanProblems(before, after, bumps) {
  const problems = [];
  for (const [name, oldVersion] of Object.entries(before)) {
    const newVersion = after[name];
    const major = (version) => Number(version.split(".")[0]);
    if (oldVersion.endsWith("-0") && newVersion !== oldVersion.slice(0, -2))
      problems.push(`${name}: first publish should be ${oldVersion.slice(0, -2)}, the plan says ${newVersion}`);
    if (major(newVersion) > major(oldVersion) && !bumps[name]?.has("major"))
      problems.push(`${name}: ${oldVersion} → ${newVersion} is a new major no changeset asked for (a peer range left behind?)`);
  }
  return problems;
}
