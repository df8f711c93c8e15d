import { readFileSync } from "node:fs";
import { FakePromptCache } from "@conduit-ai/fakes";
import { afterEach, expect, it } from "vitest";
import { type GovernedGateway, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { type ListPrice, expectSessionCachedAndPriced } from "./fixtures/prompt-cache-session.js";
import { forEachAdapter } from "./harness.js";

// Prompt caching kept and priced: the recorded Claude Code session (claude-code-replay.test.ts's
// fixture) replayed through Conduit to an Anthropic fake with the vendor's prompt-cache semantics.
// Passthrough leaves every `cache_control` and the order of tools/system/messages as the client
// sent them, so the second turn reads what the first wrote — and the key is charged exactly what
// the vendor's usage says, at list prices worked out here (claude-opus-4 row: input $15, output
// $75, cache read $1.50, 5-minute write $18.75, 1-hour write $30 per million tokens).

interface RecordedExchange {
  method: string;
  path: string;
  body: string;
}
const recording = JSON.parse(readFileSync(new URL("./fixtures/claude-code-sessions.json", import.meta.url), "utf8")) as {
  sessions: Record<string, RecordedExchange[]>;
};
const turns = (recording.sessions["tool-turn"] ?? []).filter(
  (exchange) => exchange.method === "POST" && exchange.path.startsWith("/v1/messages?"),
);

/** claude-opus-4's row of the vendor's price page. */
const OPUS_4: ListPrice = { input: 15, output: 75, cacheRead: 1.5, cacheWrite5m: 18.75, cacheWrite1h: 30 };

forEachAdapter("prompt caching kept: a recorded Claude Code session reads the cache from turn 2, priced exactly", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it("turn 1 writes the prompt cache, turn 2 reads it; the bodies reach the vendor byte for byte; spend is the vendor's usage × list prices", async () => {
    expect(turns).toHaveLength(2);
    gateway = await startGovernedGateway(start);
    gateway.anthropic.promptCache = new FakePromptCache();
    const { id, key } = await gateway.mint({ budgets: [{ usd: 100, window: "total" }] });
    for (const turn of turns) {
      const answer = await gateway.post(turn.path, key, turn.body);
      expect(answer.status).toBe(200);
    }
    const exchanges = gateway.anthropic.exchanges;
    expect(exchanges.map((exchange) => exchange.body.toString("utf8"))).toEqual(turns.map((turn) => turn.body));
    // Turn 2 reads everything turn 1 wrote (its breakpoint moved to the newest message).
    await expectSessionCachedAndPriced(gateway, id, OPUS_4, 10_000);
  });
});
