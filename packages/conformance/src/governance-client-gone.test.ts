import { type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { GATEWAY_ADMIN_KEY, type GovernedGateway, type Json, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// A client that leaves a stream before upstream reported usage is charged exactly the
// reservation the gate holds — not `max_tokens ?? 0` at the served model's price: without
// `max_tokens` the gate reserved `keys.defaultMaxOutputTokens` (4096) output tokens, and upstream
// may have served (and charged) all of them. The history row says the figures are estimated.
// Every surface: /v1/messages (the Anthropic pool), chat completions and responses (the runtime's
// provider), codex, and /api/agent/stream.
const PRICES = {
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "gpt-4o-mini": { input: 1, output: 4 },
  "gpt-5-codex": { input: 2, output: 8 },
};
const DEFAULT_OUTPUT_TOKENS = 4096;

/** The codex backend's first two events (created, a text delta); its usage would come with `response.completed`. */
const CODEX_BEFORE_USAGE = [
  ["response.created", { type: "response.created", sequence_number: 0, response: { id: "resp_1", status: "in_progress", output: [] } }],
  ["response.output_text.delta", { type: "response.output_text.delta", sequence_number: 1, item_id: "msg_1", delta: "Hel" }],
]
  .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  .join("");

interface Case {
  surface: string;
  path: string;
  body: Record<string, unknown>;
  /** The model whose price the reservation is at. */
  priced: keyof typeof PRICES;
  /** The input tokens the surface estimates for `body` (proxy: bytes ÷ 4; /api: characters of the text ÷ 4). */
  inputTokens: (text: string) => number;
  /** Makes the fake upstream send its first bytes, then stall before any usage. */
  stall: (gateway: GovernedGateway, openai: FakeOpenAI) => void;
}

const bytesOver4 = (text: string) => Math.ceil(Buffer.byteLength(text) / 4);
const CASES: Case[] = [
  {
    surface: "/v1/messages (pool)",
    path: "/v1/messages",
    body: { model: "claude-sonnet-4-5", stream: true, messages: [{ role: "user", content: "tell me a long story" }] },
    priced: "claude-sonnet-4-5",
    inputTokens: bytesOver4,
    // A ping, then nothing: no message_start, so no usage at all.
    stall: (gateway) => gateway.anthropic.reply({ events: [{ event: "ping", data: { type: "ping" } }], hold: true }),
  },
  {
    surface: "/v1/chat/completions (runtime)",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "tell me a long story" }] },
    priced: "gpt-4o-mini",
    inputTokens: bytesOver4,
    stall: (_, openai) => {
      openai.scenario = "stall";
    },
  },
  {
    surface: "/v1/responses (runtime)",
    path: "/v1/responses",
    body: { model: "openai/gpt-4o-mini", stream: true, input: "tell me a long story" },
    priced: "gpt-4o-mini",
    inputTokens: bytesOver4,
    stall: (_, openai) => {
      openai.scenario = "stall";
    },
  },
  {
    surface: "codex",
    path: "/backend-api/codex/responses",
    body: { model: "gpt-5-codex", stream: true, input: [{ role: "user", content: "tell me a long story" }] },
    priced: "gpt-5-codex",
    inputTokens: bytesOver4,
    stall: (gateway) => gateway.codex.reply({ kind: "sse", text: CODEX_BEFORE_USAGE, hold: true }),
  },
  {
    surface: "/api/agent/stream",
    path: "/api/agent/stream",
    body: { input: { text: "tell me a long story" }, model: "openai/gpt-4o-mini" },
    priced: "gpt-4o-mini",
    inputTokens: () => Math.ceil("tell me a long story".length / 4),
    stall: (_, openai) => {
      openai.scenario = "stall";
    },
  },
];

forEachAdapter("governance: a client gone before usage is charged the reservation the gate holds", ({ start }) => {
  let openai: FakeOpenAI;
  let gateway: GovernedGateway | undefined;
  beforeAll(async () => {
    openai = await startFakeOpenAI();
  });
  afterAll(async () => {
    await openai.close();
  });
  afterEach(async () => {
    openai.scenario = "text";
    await gateway?.close();
    gateway = undefined;
  });

  /** Sends `body` as a stream, reads its first bytes, then leaves. */
  async function leaveAfterFirstBytes(server: GovernedGateway, path: string, key: string, text: string): Promise<void> {
    const controller = new AbortController();
    const response = await fetch(server.url(path), {
      method: "POST",
      headers: { "x-api-key": key, authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: text,
      signal: controller.signal,
    });
    expect(response.status, path).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    while (received === 0) received += (await reader.read()).value?.byteLength ?? 0;
    controller.abort();
  }

  async function historyOf(server: GovernedGateway, id: string): Promise<Json | undefined> {
    const response = await fetch(server.url("/admin/usage?groupBy=key"), { headers: { authorization: `Bearer ${GATEWAY_ADMIN_KEY}` } });
    return ((await response.json()) as Json).data.find((row: Json) => row.group === id);
  }

  it("streams without max_tokens on every surface: spend = input estimate + 4096 output at the reserved price; the history row is estimated", async () => {
    gateway = await startGovernedGateway(start, {
      prices: PRICES,
      openai: { baseURL: openai.baseURL, models: ["gpt-4o-mini"] },
    });
    const server = gateway;
    for (const each of CASES) {
      const { id, key } = await server.mint({ budgets: [{ usd: 10, window: "total" }] });
      each.stall(server, openai);
      const text = JSON.stringify(each.body);
      await leaveAfterFirstBytes(server, each.path, key, text);
      const price = PRICES[each.priced];
      const inputTokens = each.inputTokens(text);
      const reservedPico = inputTokens * price.input * 1e6 + DEFAULT_OUTPUT_TOKENS * price.output * 1e6;
      await expect.poll(() => historyOf(server, id), { timeout: 5_000, message: each.surface }).toBeDefined();
      expect(await historyOf(server, id), each.surface).toMatchObject({
        requests: 1,
        estimatedRequests: 1,
        inputTokens,
        outputTokens: DEFAULT_OUTPUT_TOKENS,
      });
      expect((await historyOf(server, id))?.costUsd, each.surface).toBeCloseTo(reservedPico / 1e12, 12);
      expect((await server.spentUsd(id)).total, each.surface).toBeCloseTo(reservedPico / 1e12, 12);
      openai.scenario = "text";
    }
  });
});
