import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGovernance } from "./create-governance.js";

// A container's root filesystem is read-only: the spill file's place comes from the environment
// (the image sets CONDUIT_USAGE_SPILL_FILE=/tmp/…), not only from code.
let folder: string;
let closedPort: number;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "conduit-governance-spill-"));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function usageEvent(index: number) {
  return {
    id: randomUUID(),
    time: new Date().toISOString(),
    key: `key_${index % 3}`,
    model: "claude-sonnet-4-5",
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.0001,
    status: 200,
    latencyMs: 3,
  };
}

describe("createGovernance: where an outage's usage overflow spills", () => {
  it("CONDUIT_USAGE_SPILL_FILE names the spill file when PostgreSQL cannot be reached", async () => {
    const spillFile = join(folder, "spill.ndjson");
    const governance = await createGovernance({
      keys: {},
      databaseUrl: `postgres://postgres@127.0.0.1:${closedPort}/conduit`,
      env: { CONDUIT_USAGE_SPILL_FILE: spillFile },
    });
    // Past the in-memory bound (10 000 events) the oldest half goes to the spill file.
    for (let index = 0; index < 10_001; index++) governance.usage.append(usageEvent(index));
    await expect.poll(() => existsSync(spillFile), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => readFileSync(spillFile, "utf8").trim().split("\n").length, { timeout: 10_000 }).toBe(5_001);
    expect(existsSync("conduit-usage-spill.ndjson")).toBe(false);
    await governance.close();
  }, 30_000);
});
