import { readFileSync } from "node:fs";
import { FakePromptCache } from "@conduit-ai/fakes";
import { afterEach, expect, it } from "vitest";
import { GATEWAY_ADMIN_KEY, type GovernedGateway, startGovernedGateway } from "./fixtures/governed-gateway.js";
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

interface StreamUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** The usage a streamed answer reported: `message_start`'s, with `message_delta`'s output count. */
function usageOfStream(sent: Buffer): StreamUsage {
  let usage = {} as StreamUsage;
  for (const line of sent.toString("utf8").split("\n")) {
    if (!line.startsWith("data:")) continue;
    const event = JSON.parse(line.slice(5)) as { type: string; message?: { usage: StreamUsage }; usage?: Partial<StreamUsage> };
    if (event.type === "message_start" && event.message) usage = { ...event.message.usage };
    if (event.type === "message_delta") usage = { ...usage, ...event.usage };
  }
  return usage;
}

const dollars = (usage: StreamUsage) =>
  (usage.input_tokens * 15 +
    usage.output_tokens * 75 +
    usage.cache_read_input_tokens * 1.5 +
    usage.cache_creation.ephemeral_5m_input_tokens * 18.75 +
    usage.cache_creation.ephemeral_1h_input_tokens * 30) /
  1e6;

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
    const [first, second] = exchanges.map((exchange) => usageOfStream(exchange.sent)) as [StreamUsage, StreamUsage];
    const firstWrites = first.cache_creation.ephemeral_5m_input_tokens + first.cache_creation.ephemeral_1h_input_tokens;
    expect(first.cache_read_input_tokens).toBe(0);
    expect(firstWrites).toBeGreaterThan(10_000);
    // Turn 2 reads everything turn 1 wrote (its breakpoint moved to the newest message).
    expect(second.cache_read_input_tokens).toBe(firstWrites);
    const expected = dollars(first) + dollars(second);
    await expect.poll(async () => (await gateway?.spentUsd(id))?.total, { timeout: 5_000 }).toBeCloseTo(expected, 9);
    const usage = await fetch(gateway.url("/admin/usage?groupBy=key"), { headers: { authorization: `Bearer ${GATEWAY_ADMIN_KEY}` } });
    const row = ((await usage.json()) as { data: Array<{ group: string; cacheHitRatio: number; savedUsd: number }> }).data.find(
      (one) => one.group === id,
    );
    expect(row?.savedUsd).toBeCloseTo((second.cache_read_input_tokens * (15 - 1.5)) / 1e6, 9);
    expect(row?.cacheHitRatio).toBeGreaterThan(0.3);
  });
});
