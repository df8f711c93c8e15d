import { readFileSync } from "node:fs";
import { FakePromptCache } from "@conduit-ai/fakes";
import { afterEach, expect, it } from "vitest";
import { type GovernedGateway, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { type ListPrice, expectSessionCachedAndPriced } from "./fixtures/prompt-cache-session.js";
import { forEachAdapter } from "./harness.js";

// Prompt caching across a translated surface: the recorded Codex CLI session
// (codex-responses-replay.test.ts's fixture: two /v1/responses turns on claude-sonnet-4-5, the
// second repeating the first's context with an exec_command call and its output) replayed
// through Conduit to an Anthropic fake with the vendor's prompt-cache semantics, the caller
// asking for cache hints (`x-conduit-cache-control: auto`, as a Codex provider's `http_headers`
// sends it). Conduit marks the system prompt (Codex's developer messages) and the last tool, so
// turn 2 reads what turn 1 wrote — and the key is charged exactly the vendor's usage at list
// prices worked out here (claude-sonnet-4 row: input $3, output $15, cache read $0.30, 5-minute
// write $3.75, 1-hour write $6 per million tokens; under 200k input tokens, no long-context tier).

interface RecordedExchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}
const recording = JSON.parse(readFileSync(new URL("./fixtures/codex-sessions.json", import.meta.url), "utf8")) as {
  sessions: Record<string, RecordedExchange[]>;
};
const turns = recording.sessions["responses-tool-turn"] ?? [];

const SONNET_4: ListPrice = { input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6 };
const EPHEMERAL = { type: "ephemeral" };

forEachAdapter(
  "prompt caching across /v1/responses: a recorded Codex CLI session reads the cache from turn 2, priced exactly",
  ({ start }) => {
    let gateway: GovernedGateway | undefined;
    afterEach(async () => {
      await gateway?.close();
      gateway = undefined;
    });

    it("turn 1 writes the system prompt and tools to the cache, turn 2 reads them; spend is the vendor's usage × list prices", async () => {
      expect(turns.map((turn) => turn.path)).toEqual(["/v1/responses", "/v1/responses"]);
      gateway = await startGovernedGateway(start);
      gateway.anthropic.promptCache = new FakePromptCache();
      const { id, key } = await gateway.mint({ budgets: [{ usd: 100, window: "total" }] });
      for (const turn of turns) {
        const answer = await gateway.post(turn.path, key, turn.body, { ...turn.headers, "x-conduit-cache-control": "auto" });
        expect(answer.status).toBe(200);
        expect(answer.text).toContain("event: response.completed");
      }
      // The Messages requests carry the breakpoints; the context grew, the cached prefix did not change.
      const sent = gateway.anthropic.exchanges.map(
        (exchange) =>
          JSON.parse(exchange.body.toString("utf8")) as {
            system: Array<{ text: string; cache_control?: unknown }>;
            tools: Array<{ name: string; cache_control?: unknown }>;
            messages: unknown[];
          },
      );
      expect(sent).toHaveLength(2);
      for (const body of sent) {
        expect(body.system).toHaveLength(1);
        expect(body.system[0]?.cache_control).toEqual(EPHEMERAL);
        expect(body.tools.at(-1)?.cache_control).toEqual(EPHEMERAL);
        expect(body.tools.slice(0, -1).every((tool) => tool.cache_control === undefined)).toBe(true);
      }
      expect(sent[1]?.system).toEqual(sent[0]?.system);
      expect(sent[1]?.tools).toEqual(sent[0]?.tools);
      expect(sent[1]?.messages.length).toBeGreaterThan(sent[0]?.messages.length ?? 0);
      await expectSessionCachedAndPriced(gateway, id, SONNET_4, 5_000);
    });
  },
);
