// node --test tools/scripts/release-rules.test.mjs — the release dry run's rules on small inputs,
// and the build step that writes the version into dist (the dry run covers them end to end).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { relativeLinks, tarballProblems, versionPlanProblems } from "./release-rules.mjs";

test("README links that only work inside the repository are reported", () => {
  const markdown = '[a](https://x.dev/a) [b](ROUTES.md) ![c](../../logo.png) [d](#usage) [e](mailto:a@b.c) [f](./src/index.ts "title")';
  assert.deepEqual(relativeLinks(markdown), ["ROUTES.md", "../../logo.png", "./src/index.ts"]);
});

test("an export whose file is not in the tarball is reported, under any condition", () => {
  const directory = mkdtempSync(join(tmpdir(), "release-rules-"));
  try {
    mkdirSync(join(directory, "package/dist"), { recursive: true });
    const exports = { ".": { "@conduit-ai/source": "./src/index.ts", types: "./dist/index.d.ts", default: "./dist/index.js" } };
    writeFileSync(join(directory, "package/package.json"), JSON.stringify({ name: "x", version: "1.0.0", exports }));
    for (const file of ["dist/index.js", "dist/index.d.ts", "LICENSE", "README.md"]) writeFileSync(join(directory, "package", file), "");
    const tarball = join(directory, "x.tgz");
    execFileSync("tar", ["-czf", tarball, "-C", directory, "package"]);
    const { problems } = tarballProblems({ tarball, directory: "packages/x", releasedVersions: {}, satisfies: () => true });
    assert.ok(problems.includes('export "." points to ./src/index.ts, not in the tarball'), problems.join("\n"));
    assert.ok(!problems.some((problem) => problem.includes("./dist/index.js")));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test("a first publish becomes exactly the placeholder's release", () => {
  assert.deepEqual(versionPlanProblems({ a: "0.1.0-0" }, { a: "0.1.0" }, {}), []);
  assert.match(versionPlanProblems({ a: "0.1.0-0" }, { a: "0.2.0" }, {})[0], /first publish should be 0\.1\.0/);
});

test("a new major nobody asked for (a dependent pushed out of its peer range) is reported", () => {
  assert.match(versionPlanProblems({ a: "0.0.0" }, { a: "1.0.0" }, { a: new Set(["minor"]) })[0], /new major no changeset asked for/);
  assert.deepEqual(versionPlanProblems({ a: "1.2.0" }, { a: "2.0.0" }, { a: new Set(["major"]) }), []);
  assert.deepEqual(versionPlanProblems({ a: "0.1.0" }, { a: "0.2.0" }, {}), []);
});

test("stamp-version writes package.json's version into dist/version.js and refuses a module that does not read it", () => {
  const script = fileURLToPath(new URL("./stamp-version.mjs", import.meta.url));
  const directory = mkdtempSync(join(tmpdir(), "stamp-version-"));
  try {
    mkdirSync(join(directory, "dist"));
    writeFileSync(join(directory, "package.json"), JSON.stringify({ name: "@scope/example", version: "3.4.5" }));
    writeFileSync(
      join(directory, "dist/version.js"),
      'import manifest from "../package.json" with { type: "json" };\nexport const VERSION = manifest.version;\n',
    );
    writeFileSync(join(directory, "dist/version.js.map"), "{}");
    execFileSync(process.execPath, [script], { cwd: directory });
    assert.match(readFileSync(join(directory, "dist/version.js"), "utf8"), /export const VERSION = "3\.4\.5";/);

    writeFileSync(join(directory, "dist/version.js"), 'export const VERSION = "1.0.0";\n');
    assert.throws(() => execFileSync(process.execPath, [script], { cwd: directory, stdio: "pipe" }), /does not import/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
