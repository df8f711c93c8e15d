import { reportedUsage } from "@conduit-ai/proxy/testing";
import { afterEach, expect, it } from "vitest";
import { type GovernedGateway, type GovernedGatewayOptions, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// A budget is never exceeded by more than one call, whatever the model is called: an alias is
// reserved at the dearest model it may reach, and a model without a price is refused to a
// budgeted key (or estimated, or allowed, as `keys.unpricedModels` says) — on every AI surface.
const ALIASES = {
  // Served by haiku, but may fall back to opus-4 ($15 / $75 per million tokens).
  fast: { target: "anthropic/claude-haiku-4-5", fallbacks: ["anthropic/claude-opus-4"] },
  deep: "anthropic/claude-opus-4",
};
const OPUS_4 = { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 };

/** Dollars of what the fake upstream reported in one answer (JSON or SSE), at opus-4's prices. */
function opusCost(sent: Buffer): number {
  let usage = reportedUsage(sent);
  try {
    const answer = JSON.parse(sent.toString()) as { usage: Record<string, number> };
    usage = {
      inputTokens: answer.usage.input_tokens ?? 0,
      outputTokens: answer.usage.output_tokens ?? 0,
      cacheReadTokens: answer.usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: answer.usage.cache_creation_input_tokens ?? 0,
    };
  } catch {
    // A stream: as reportedUsage read it.
  }
  return (
    (usage.inputTokens * OPUS_4.input +
      usage.outputTokens * OPUS_4.output +
      usage.cacheReadTokens * OPUS_4.cacheRead +
      usage.cacheWriteTokens * OPUS_4.cacheWrite) /
    1e6
  );
}
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 100,
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

forEachAdapter("governance: aliases and unpriced models are priced before admission", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });
  const serve = async (options: GovernedGatewayOptions = {}) => {
    gateway = await startGovernedGateway(start, { models: ALIASES, ...options });
    return gateway;
  };

  it("an alias reserves at the dearest model it may reach (its fallback), on /v1/messages, chat completions and responses", async () => {
    const server = await serve();
    // 100 output tokens of opus-4 is $0.0075: more than the whole budget. Haiku's would fit.
    const { key } = await server.mint({ budgets: [{ usd: 0.001, window: "total" }] });
    const messages = await server.post("/v1/messages", key, ask("fast"));
    expect(messages.status).toBe(429);
    expect(messages.json).toMatchObject({ type: "error", error: { type: "budget_exceeded" } });
    const chat = await server.post("/v1/chat/completions", key, {
      model: "fast",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(chat.status).toBe(429);
    expect(chat.json.error).toMatchObject({ type: "insufficient_quota", code: "budget_exceeded" });
    const responses = await server.post("/v1/responses", key, { model: "fast", max_output_tokens: 100, input: "hi" });
    expect(responses.status).toBe(429);
    expect(responses.json.error).toMatchObject({ code: "budget_exceeded" });
    expect(server.anthropic.exchanges).toHaveLength(0);
    // The same request on haiku itself fits.
    expect((await server.post("/v1/messages", key, ask("claude-haiku-4-5"))).status).toBe(200);
  });

  it("concurrent calls through an alias overshoot the budget by at most one call (spend = what upstream reported × price)", async () => {
    const server = await serve();
    server.anthropic.responseDelayMs = 150;
    const budget = 0.002;
    const { id, key } = await server.mint({ budgets: [{ usd: budget, window: "total" }] });
    const answers = await Promise.all(Array.from({ length: 20 }, () => server.post("/v1/messages", key, ask("deep", { max_tokens: 16 }))));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses).toContain(429);
    const costs = server.anthropic.exchanges.map((exchange) => opusCost(exchange.sent));
    expect(costs).toHaveLength(statuses.filter((status) => status === 200).length);
    const expected = costs.reduce((sum, cost) => sum + cost, 0);
    await expect.poll(async () => (await server.spentUsd(id)).total).toBeCloseTo(expected, 9);
    expect(expected).toBeLessThanOrEqual(budget + Math.max(...costs));
  });

  it('unpriced model, budgeted key ("refuse", the default): 403 in each surface\'s shape naming the model and `prices`, one warning per model', async () => {
    const server = await serve({ prices: { echo: { input: 1, output: 1 } } });
    const { key } = await server.mint({ budgets: [{ usd: 1, window: "total" }] });
    const unpriced = (message: string | undefined, model: string) => {
      expect(message).toContain(`"${model}"`);
      expect(message).toContain("prices");
    };
    const messages = await server.post("/v1/messages", key, ask("claude-future-9"));
    expect(messages.status).toBe(403);
    expect(messages.headers.get("x-should-retry")).toBe("false");
    expect(messages.json.type).toBe("error");
    expect(messages.json.error.type).toBe("permission_error");
    unpriced(messages.json.error.message, "claude-future-9");
    const chat = await server.post("/v1/chat/completions", key, { model: "claude-future-9", messages: [{ role: "user", content: "hi" }] });
    expect(chat.status).toBe(403);
    expect(chat.json.error.type).toBe("invalid_request_error");
    unpriced(chat.json.error.message, "claude-future-9");
    const responses = await server.post("/v1/responses", key, { model: "claude-future-9", input: "hi" });
    expect(responses.status).toBe(403);
    unpriced(responses.json.error.message, "claude-future-9");
    const codex = await server.post("/backend-api/codex/responses", key, { model: "gpt-future-1", input: "hi" });
    expect(codex.status).toBe(403);
    expect(codex.json.error.type).toBe("invalid_request_error");
    unpriced(codex.json.error.message, "gpt-future-1");
    const api = await server.post("/api/agent/generate", key, { input: { text: "hi" }, model: "future-model-1" });
    expect(api.status).toBe(403);
    expect(api.json.error).toMatchObject({ code: "MODEL_UNPRICED", category: "AUTHORIZATION", details: { reason: "model_unpriced" } });
    unpriced(api.json.error.message, "future-model-1");
    expect(server.anthropic.exchanges).toHaveLength(0);
    expect(server.codex.requests).toHaveLength(0);
    expect(server.warnings.filter((warning) => warning.includes('"claude-future-9"'))).toHaveLength(1);
    // A key with no budget runs it: nothing to bind.
    const free = await server.mint({});
    expect((await server.post("/v1/messages", free.key, ask("claude-future-9"))).status).toBe(200);
  });

  it('"estimate" prices an unpriced model as its vendor\'s dearest; "allow" runs it free', async () => {
    const estimating = await serve({ unpricedModels: "estimate" });
    const small = await estimating.mint({ budgets: [{ usd: 0.001, window: "total" }] });
    // As claude-opus-4: 100 output tokens at $75 per million is more than $0.001.
    expect((await estimating.post("/v1/messages", small.key, ask("claude-future-9"))).status).toBe(429);
    const large = await estimating.mint({ budgets: [{ usd: 1, window: "total" }] });
    expect((await estimating.post("/v1/messages", large.key, ask("claude-future-9"))).status).toBe(200);
    const expected = opusCost(estimating.anthropic.exchanges.at(-1)?.sent ?? Buffer.alloc(0));
    await expect.poll(async () => (await estimating.spentUsd(large.id)).total).toBeCloseTo(expected, 9);
    expect(expected).toBeGreaterThan(0);
    await estimating.close();
    gateway = undefined;

    const allowing = await serve({ unpricedModels: "allow" });
    const budgeted = await allowing.mint({ budgets: [{ usd: 0.001, window: "total" }] });
    expect((await allowing.post("/v1/messages", budgeted.key, ask("claude-future-9"))).status).toBe(200);
    expect(allowing.warnings.some((warning) => warning.includes('"claude-future-9"'))).toBe(true);
  });

  it("an /api call naming no model is priced by the runtime's default model (the free local one here), not the dearest row of the table", async () => {
    const server = await serve();
    // The dearest row (claude-opus-4) would reserve 4096 output tokens × $75 per million ≈ $0.31: over this budget.
    const { id, key } = await server.mint({ budgets: [{ usd: 0.01, window: "total" }] });
    const generate = await server.post("/api/agent/generate", key, { input: { text: "hi" } });
    expect(generate.status).toBe(200);
    expect(generate.json.data).toMatchObject({ provider: "local", model: "echo" });
    const stream = await server.post("/api/agent/stream", key, { input: { text: "hi" } });
    expect(stream.status).toBe(200);
    expect(stream.text).toContain("finish");
    await expect.poll(async () => (await server.spentUsd(id)).total).toBe(0);
    // Naming a priced model still reserves at its price.
    expect((await server.post("/api/agent/generate", key, { input: { text: "hi" }, model: "claude-opus-4" })).status).toBe(429);
  });
});
