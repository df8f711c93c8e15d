import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { GATEWAY_ADMIN_KEY, type GovernedGateway, type Json } from "./fixtures/governed-gateway.js";
import { PRICING_TEAM, type PricingViews, USD, cutAfter, startPricingViews } from "./fixtures/pricing-views.js";
import { ANTHROPIC_CUT_STREAM, ANTHROPIC_JSON, ANTHROPIC_STREAM, CODEX_STREAM, SONNET } from "./fixtures/vendor-usage-payloads.js";
import { forEachAdapter } from "./harness.js";

// Every dollar Conduit shows is the vendor's dollar: recorded vendor usage payloads (JSON,
// streamed, and streams the client cut), each with the cost the vendor bills for it worked out by
// hand, read back through every place Conduit shows money — `/admin/usage` (with the cache hit
// ratio and the savings), the key's spend (`GET /admin/keys/{id}`), the usage history in
// PostgreSQL and the pool's `/accounts` totals — which must all agree to 1e-9 USD.

const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TEAM = PRICING_TEAM;

let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
});
afterAll(async () => {
  await pool.end();
});

const asAdmin = { authorization: `Bearer ${GATEWAY_ADMIN_KEY}` };
const ask = (extra: Record<string, unknown> = {}) => ({
  model: SONNET,
  max_tokens: 500,
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

forEachAdapter("pricing: the vendor's usage payloads priced exactly, the same everywhere Conduit shows money", ({ start }) => {
  let views: PricingViews | undefined;
  afterEach(async () => {
    await views?.close();
    views = undefined;
  });

  const serve = async () => {
    views = await startPricingViews(start, pool);
    return views.gateway;
  };
  const adminGet = (_server: GovernedGateway, path: string) => (views as PricingViews).adminGet(path);
  const history = (id: string) => (views as PricingViews).history(id);
  const accountsOf = (_server: GovernedGateway) => (views as PricingViews).accounts();

  it("Anthropic /v1/messages — JSON, streamed and client-cut: 5m and 1h cache writes, reads and web searches agree in /admin/usage, key spend, PostgreSQL and /accounts", async () => {
    const server = await serve();
    const { id, key } = await server.mint({ team: TEAM, budgets: [{ usd: 100, window: "total" }] });
    server.anthropic.reply(
      { body: ANTHROPIC_JSON.body },
      { events: ANTHROPIC_STREAM.events },
      { events: ANTHROPIC_CUT_STREAM.events, hold: true },
    );

    const json = await server.post("/v1/messages", key, ask());
    expect(json.status, json.text).toBe(200);
    // Passthrough: the client reads the vendor's usage untouched.
    expect(json.json.usage).toEqual(ANTHROPIC_JSON.body.usage);
    const streamed = await server.post("/v1/messages", key, ask({ stream: true }));
    expect(streamed.text).toContain("message_stop");
    expect(await cutAfter(server, "/v1/messages", { "x-api-key": key }, ask({ stream: true }), "message_delta")).toContain(
      '"output_tokens":90',
    );

    const cases = [ANTHROPIC_JSON, ANTHROPIC_STREAM, ANTHROPIC_CUT_STREAM];
    const cost = cases.reduce((sum, one) => sum + one.costUsd, 0);
    const saved = cases.reduce((sum, one) => sum + one.savedUsd, 0);
    const tokens = (field: keyof (typeof cases)[number]["tokens"]) => cases.reduce((sum, one) => sum + one.tokens[field], 0);

    await expect.poll(async () => (await server.spentUsd(id)).total, { timeout: 5_000 }).toBeCloseTo(cost, USD);
    const [row] = ((await adminGet(server, "/admin/usage?groupBy=key")) as Json[]).filter((one) => one.group === id);
    expect(row).toMatchObject({
      requests: 3,
      inputTokens: tokens("input"),
      outputTokens: tokens("output"),
      cacheReadTokens: tokens("cacheRead"),
      cacheWriteTokens: tokens("cacheWrite"),
      estimatedRequests: 0,
    });
    expect(row?.costUsd).toBeCloseTo(cost, USD);
    expect(row?.savedUsd).toBeCloseTo(saved, USD);
    const hitRatio = tokens("cacheRead") / (tokens("input") + tokens("cacheRead") + tokens("cacheWrite"));
    expect(row?.cacheHitRatio).toBeCloseTo(hitRatio, 6);
    const [teamRow] = ((await adminGet(server, "/admin/usage?groupBy=team")) as Json[]).filter((one) => one.group === TEAM);
    expect(teamRow?.savedUsd).toBeCloseTo(saved, USD);

    const stored = await history(id);
    expect(Number(stored.calls)).toBe(3);
    expect(Number(stored.cost)).toBeCloseTo(cost, USD);
    expect(Number(stored.saved)).toBeCloseTo(saved, USD);
    expect(Number(stored.cache_write_1h)).toBe(11_000);
    expect(Number(stored.searches)).toBe(2);

    const accounts = await accountsOf(server);
    const claude = accounts.find((account: Json) => account.id === "claude");
    expect(claude?.usage.totals.cost).toBeCloseTo(cost, USD);
    expect(claude?.usage.totals).toMatchObject({ cacheReadTokens: tokens("cacheRead"), cacheCreationTokens: tokens("cacheWrite") });
  });

  it("the same Anthropic answer translated for /v1/chat/completions and /v1/responses: cached tokens in the caller's shape, the same price", async () => {
    const server = await serve();
    const { id, key } = await server.mint({ team: TEAM, budgets: [{ usd: 100, window: "total" }] });
    server.anthropic.reply({ body: ANTHROPIC_JSON.body }, { body: ANTHROPIC_JSON.body });
    const chat = await server.post("/v1/chat/completions", key, { model: SONNET, messages: [{ role: "user", content: "hi" }] });
    expect(chat.status).toBe(200);
    const prompt = 1200 + 50_000 + 3000;
    expect(chat.json.usage).toEqual({
      prompt_tokens: prompt,
      completion_tokens: 400,
      total_tokens: prompt + 400,
      prompt_tokens_details: { cached_tokens: 50_000 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    const responses = await server.post("/v1/responses", key, { model: SONNET, input: "hi" });
    expect(responses.status).toBe(200);
    expect(responses.json.usage).toMatchObject({
      input_tokens: prompt,
      input_tokens_details: { cached_tokens: 50_000 },
      output_tokens: 400,
    });
    await expect.poll(async () => (await server.spentUsd(id)).total, { timeout: 5_000 }).toBeCloseTo(2 * ANTHROPIC_JSON.costUsd, USD);
    expect(Number((await history(id)).cost)).toBeCloseTo(2 * ANTHROPIC_JSON.costUsd, USD);
  });

  it("codex (Responses) — cached input out of the input count, reasoning inside the output: priced as OpenAI bills it", async () => {
    const server = await serve();
    const { id, key } = await server.mint({ team: TEAM, budgets: [{ usd: 100, window: "total" }] });
    server.codex.reply({ kind: "sse", text: CODEX_STREAM.text });
    const answer = await server.post("/backend-api/codex/responses", key, { model: CODEX_STREAM.model, input: "hi", stream: true });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"reasoning_tokens":2500');
    await expect.poll(async () => (await server.spentUsd(id)).total, { timeout: 5_000 }).toBeCloseTo(CODEX_STREAM.costUsd, USD);
    const [row] = ((await adminGet(server, "/admin/usage?groupBy=key")) as Json[]).filter((one) => one.group === id);
    expect(row).toMatchObject({ inputTokens: 3000, cacheReadTokens: 9000, outputTokens: 3000 });
    expect(row?.savedUsd).toBeCloseTo(CODEX_STREAM.savedUsd, USD);
    const stored = await history(id);
    expect(Number(stored.cost)).toBeCloseTo(CODEX_STREAM.costUsd, USD);
    expect(Number(stored.reasoning)).toBe(2500);
    const accounts = await accountsOf(server);
    const codex = accounts.find((account: Json) => account.id === "codex");
    expect(codex?.usage.totals.cost).toBeCloseTo(CODEX_STREAM.costUsd, USD);
  });

  it("/api/metrics counts cache reads and their savings by team", async () => {
    const server = await serve();
    const { id, key } = await server.mint({ team: TEAM, budgets: [{ usd: 100, window: "total" }] });
    server.anthropic.reply({ body: ANTHROPIC_JSON.body });
    expect((await server.post("/v1/messages", key, ask())).status).toBe(200);
    await expect.poll(async () => (await server.spentUsd(id)).total, { timeout: 5_000 }).toBeCloseTo(ANTHROPIC_JSON.costUsd, USD);
    const metrics = await (await fetch(server.url("/api/metrics"), { headers: asAdmin })).text();
    expect(metrics).toContain(`conduit_cache_read_tokens_total{team="${TEAM}"} 50000`);
    const saved = /conduit_cache_saved_usd_total\{team="pricing-team"\} ([0-9.e-]+)/.exec(metrics)?.[1];
    expect(Number(saved)).toBeCloseTo(ANTHROPIC_JSON.savedUsd, USD);
  });
});
