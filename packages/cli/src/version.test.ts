import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const packageDirectory = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

it.each(["--version", "-v"])("`conduit %s` prints package.json's version and exits 0", async (flag) => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--conditions=@conduit-ai/source", "--import", "tsx", "src/bin.ts", flag], {
    cwd: packageDirectory,
    encoding: "utf8",
  });
  expect(stdout.trim()).toBe(manifest.version);
});
