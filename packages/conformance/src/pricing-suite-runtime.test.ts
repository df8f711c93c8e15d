import { type FakeServer, PROVIDER_CASES, type VendorFake, fixedAnswer } from "@conduit-ai/fakes";
import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { Json } from "./fixtures/governed-gateway.js";
import { PRICING_TEAM, type PricingViews, USD, cutAfter, startPricingViews } from "./fixtures/pricing-views.js";
import { BEDROCK_JSON, BEDROCK_MODEL, BEDROCK_STREAM, GEMINI_JSON, GEMINI_MODEL, GEMINI_STREAM } from "./fixtures/vendor-usage-payloads.js";
import { forEachAdapter } from "./harness.js";

// The pricing suite (pricing-suite.test.ts) for the runtime's providers: Gemini's and Bedrock's
// usage payloads — JSON, streamed, and a stream the client cuts — reached through
// /v1/chat/completions, each priced by hand (vendor-usage-payloads.ts) and read back through the
// key's spend, `/admin/usage` and the PostgreSQL history, which must agree to 1e-9 USD. A cut
// runtime stream reports no usage (the vendors send it last), so it is charged its reservation:
// ⌈body bytes ÷ 4⌉ input tokens and `max_tokens` output tokens at the model's list price.
// (`/accounts` lists the Anthropic and codex pool accounts only: runtime providers have no row.)

const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
});
afterAll(async () => {
  await pool.end();
});

const vendors = [
  { name: "gemini", type: "google", model: GEMINI_MODEL, json: GEMINI_JSON, stream: GEMINI_STREAM, price: { input: 0.3, output: 2.5 } },
  { name: "bedrock", type: "bedrock", model: BEDROCK_MODEL, json: BEDROCK_JSON, stream: BEDROCK_STREAM, price: { input: 3, output: 15 } },
];

forEachAdapter("pricing: Gemini and Bedrock usage payloads priced exactly, the same in every view", ({ start }) => {
  let views: PricingViews | undefined;
  let fake: FakeServer | undefined;
  afterEach(async () => {
    await views?.close();
    await fake?.close();
    views = undefined;
    fake = undefined;
  });

  for (const vendor of vendors) {
    it(`${vendor.name} — JSON, streamed and client-cut: cache reads, reasoning and the cut's reservation agree in key spend, /admin/usage and PostgreSQL`, async () => {
      const vendorCase = PROVIDER_CASES.find((one) => one.type === vendor.type);
      if (!vendorCase) throw new Error(`no provider case ${vendor.type}`);
      const started = (await vendorCase.start()) as VendorFake;
      fake = started;
      views = await startPricingViews(start, pool, { providers: { [vendor.name]: vendorCase.provider(started) as never } });
      const server = views.gateway;
      const { id, key } = await server.mint({ team: PRICING_TEAM, budgets: [{ usd: 100, window: "total" }] });
      const model = `${vendor.name}/${vendor.model}`;
      const ask = (extra: Record<string, unknown> = {}) => ({
        model,
        max_tokens: 500,
        messages: [{ role: "user", content: "hi" }],
        ...extra,
      });

      started.answer = fixedAnswer(["Priced."], vendor.json.usage);
      const json = await server.post("/v1/chat/completions", key, ask());
      expect(json.status, json.text).toBe(200);
      // The caller's shape carries the vendor's figures: cached tokens inside the prompt count.
      expect(json.json.usage.prompt_tokens_details?.cached_tokens ?? 0).toBe(vendor.json.tokens.cacheRead);
      expect(json.json.usage.completion_tokens).toBe(vendor.json.tokens.output);

      started.answer = fixedAnswer(["Streamed ", "and priced."], vendor.stream.usage);
      const streamed = await server.post("/v1/chat/completions", key, ask({ stream: true, stream_options: { include_usage: true } }));
      expect(streamed.text).toContain("data: [DONE]");

      // The client leaves after the first words of a slow answer: no usage was reported yet.
      started.answer = () => ({ text: ["one ", "two ", "three ", "four "], pieceDelayMs: 400, usage: vendor.stream.usage });
      const cutBody = ask({ stream: true });
      await cutAfter(server, "/v1/chat/completions", { authorization: `Bearer ${key}` }, cutBody, '"content":"one ');
      const reservedUsd =
        (Math.ceil(Buffer.byteLength(JSON.stringify(cutBody)) / 4) * vendor.price.input + 500 * vendor.price.output) / 1e6;

      const cost = vendor.json.costUsd + vendor.stream.costUsd + reservedUsd;
      const saved = vendor.json.savedUsd + vendor.stream.savedUsd;
      await expect.poll(async () => (await server.spentUsd(id)).total, { timeout: 10_000 }).toBeCloseTo(cost, USD);

      const [row] = ((await views.adminGet("/admin/usage?groupBy=key")) as Json[]).filter((one) => one.group === id);
      expect(row).toMatchObject({
        requests: 3,
        estimatedRequests: 1,
        cacheReadTokens: vendor.json.tokens.cacheRead + vendor.stream.tokens.cacheRead,
        cacheWriteTokens: vendor.json.tokens.cacheWrite + vendor.stream.tokens.cacheWrite,
      });
      expect(row?.costUsd).toBeCloseTo(cost, USD);
      expect(row?.savedUsd).toBeCloseTo(saved, USD);
      const [teamRow] = ((await views.adminGet("/admin/usage?groupBy=team")) as Json[]).filter((one) => one.group === PRICING_TEAM);
      expect(teamRow?.costUsd).toBeCloseTo(cost, USD);

      const stored = await views.history(id);
      expect(Number(stored.calls)).toBe(3);
      expect(Number(stored.estimated)).toBe(1);
      expect(Number(stored.cost)).toBeCloseTo(cost, USD);
      expect(Number(stored.saved)).toBeCloseTo(saved, USD);
      expect(Number(stored.cache_read)).toBe(vendor.json.tokens.cacheRead + vendor.stream.tokens.cacheRead);
      expect(Number(stored.reasoning)).toBe(vendor.json.tokens.reasoning + vendor.stream.tokens.reasoning);
    });
  }
});
