// CI wrapper for the consumer install check: node --test tools/scripts/consumer-install.test.mjs
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

test("packed server-core + adapter-express install with npm, serve, and load no other framework", { timeout: 180_000 }, () => {
  const script = fileURLToPath(new URL("./consumer-install-check.mjs", import.meta.url));
  const result = spawnSync(process.execPath, [script], { encoding: "utf8" });
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /consumer-install: ok/);
});
