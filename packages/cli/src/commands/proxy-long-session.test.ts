import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { killLeftovers, portOf, spawnConduit } from "../test-support/spawn-conduit.js";

// An agent session makes hundreds of calls from one address. With the default
// config (the server's per-address limit of 100 per 15 minutes on), 500 sequential turns through
// `conduit proxy` and through `conduit serve` all complete: the proxy limits per client key.
const CLIENT_KEY = "long-session-client-key-0123456789";
const TURNS = 500;
let anthropic: FakeAnthropic;

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  anthropic.credentials.add("sk-ant-long-session");
});
afterAll(() => anthropic.close());
afterEach(killLeftovers);

function configFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "conduit-long-session-")), "conduit.json");
  const proxy = {
    enabled: true,
    upstream: { anthropic: anthropic.url },
    clientKeys: [CLIENT_KEY],
    accounts: [{ id: "claude-1", type: "api-key", apiKey: "sk-ant-long-session" }],
  };
  writeFileSync(path, JSON.stringify({ proxy }));
  return path;
}

async function session(base: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const response = await fetch(`${base}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 16, messages: [{ role: "user", content: `turn ${turn}` }] }),
    });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

describe("a 500-turn agent session with the default config", { timeout: 180_000 }, () => {
  for (const [command, ready] of [
    ["proxy", "Conduit proxy listening on "],
    ["serve", "Conduit listening on "],
  ] as const) {
    it(`completes through conduit ${command}`, async () => {
      const before = anthropic.exchanges.length;
      const run = spawnConduit([command, "--config", configFile(), "--port", "0", "--host", "127.0.0.1"], { HOST: "" }, ready);
      const port = portOf(await run.ready);
      const statuses = await session(`http://127.0.0.1:${port}`);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(anthropic.exchanges.length - before).toBe(TURNS);
      // The default per-address limit is on and still guards the other routes (/accounts among them).
      let limited = false;
      for (let index = 0; index < 120 && !limited; index++) {
        const response = await fetch(`http://127.0.0.1:${port}/accounts`, { headers: { "x-api-key": CLIENT_KEY } });
        await response.arrayBuffer();
        limited = response.status === 429;
      }
      expect(limited).toBe(true);
      run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
    });
  }
});
