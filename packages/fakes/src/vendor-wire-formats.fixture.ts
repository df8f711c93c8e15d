import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceAccountFile } from "./vertex/fake-vertex.js";

/** Writes a fake's service-account key file to a fresh temporary folder; returns its path. */
export function writeServiceAccount(account: ServiceAccountFile): string {
  const path = join(mkdtempSync(join(tmpdir(), "conduit-vertex-")), "service-account.json");
  writeFileSync(path, JSON.stringify(account));
  return path;
}
