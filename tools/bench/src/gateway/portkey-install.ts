// Portkey's gateway for the comparison, installed once into a scratch folder under the system temp
// directory (never a workspace dependency). `--portkey off` skips it; a failed install is reported,
// and the tables then show Conduit beside the pipe alone.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PORTKEY_VERSION = "1.15.2";

/** The path of Portkey's server entry, installing it first when missing; undefined when npm failed. */
export function portkeyEntry(): string | undefined {
  const folder = join(tmpdir(), `conduit-bench-portkey-${PORTKEY_VERSION}`);
  const entry = join(folder, "node_modules/@portkey-ai/gateway/build/start-server.js");
  if (existsSync(entry)) return entry;
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "conduit-bench-portkey", private: true }));
  try {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", `@portkey-ai/gateway@${PORTKEY_VERSION}`], {
      cwd: folder,
      stdio: "inherit",
    });
  } catch (error) {
    console.error(`Portkey's gateway could not be installed (${(error as Error).message}); it is left out of this run`);
    return undefined;
  }
  return entry;
}
