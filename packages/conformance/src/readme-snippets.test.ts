import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type Snippet, snippetsOf, typeCheck, virtualPath } from "./snippet-compiler.js";

/**
 * Every ```ts block of the root README and of packages/*\/README.md compiles under strict
 * TypeScript against the workspace's real packages. A snippet is a module of its own; what it
 * takes as given (a `runtime`, a `server`) it declares itself (`declare const runtime: Runtime`).
 */
const root = fileURLToPath(new URL("../../..", import.meta.url));

function readmeSnippets(): Snippet[] {
  const readmes = [["README.md", join(root, "README.md")]];
  for (const name of readdirSync(join(root, "packages"))) {
    const path = join(root, "packages", name, "README.md");
    if (existsSync(path)) readmes.push([`packages/${name}/README.md`, path]);
  }
  return readmes.flatMap(([display, path]) => snippetsOf(path as string, display as string));
}

describe("README snippets", () => {
  it("type-check, every one", () => {
    const snippets = readmeSnippets();
    expect(snippets.length).toBeGreaterThan(20);
    const origins = new Map<string, string>();
    // Snippets that augment a module (`declare module`) get a program of their own: the augmentation would apply to all the others.
    const programs: Array<Map<string, string>> = [new Map()];
    for (const snippet of snippets) {
      const path = virtualPath(snippet.origin);
      origins.set(path, snippet.origin);
      // A module even without imports: top-level await, and no names shared between snippets.
      const source = `${snippet.code}\nexport {};\n`;
      if (snippet.code.includes("declare module")) programs.push(new Map([[path, source]]));
      else programs[0]?.set(path, source);
    }
    const problems = programs.flatMap(typeCheck).map((problem) => {
      const [path] = problem.split(":");
      return origins.has(path as string) ? problem.replace(path as string, origins.get(path as string) as string) : problem;
    });
    expect(problems).toEqual([]);
  }, 300_000);

  it("catches a snippet that does not compile (the check is real)", () => {
    const broken = new Map([
      [
        virtualPath("broken"),
        'import { createServer } from "@conduit-ai/server-core";\nawait createServer(undefined, { framework: "nest" });\nexport {};\n',
      ],
    ]);
    expect(typeCheck(broken).join("\n")).toMatch(/nest/);
  }, 300_000);
});
