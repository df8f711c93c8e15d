import type { UsageEvent } from "@conduit-ai/governance";
import { afterEach, expect, it } from "vitest";
import { CACHED_MODEL, CACHED_MODEL_PRICE, type CachedGateway, type Json, startCachedGateway } from "./fixtures/response-cache-gateway.js";
import { forEachAdapter } from "./harness.js";

// The exact response cache on /v1/responses, by the rules of the other surfaces
// (proxy-response-cache.test.ts): the same request of the same team within the TTL is answered
// from the cache (x-conduit-cache: hit) — the same response object, or the same stream of events
// byte for byte — at $0 with what the stored answer cost as its savedUsd; another team, another
// question or `x-conduit-cache: off` goes upstream.

/** The usage a Responses answer reported: the response object's, or its stream's `response.completed`. */
function usageOf(text: string): Json {
  if (text.startsWith("{")) return (JSON.parse(text) as Json).usage;
  const completed = text.split("\n").find((line) => line.startsWith("data: ") && line.includes('"response.completed"'));
  return (JSON.parse(completed?.slice(6) ?? "{}") as Json).response.usage;
}

forEachAdapter("proxy response cache on /v1/responses", ({ start }) => {
  let gateway: CachedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  const ask = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch((gateway as CachedGateway).url("/v1/responses"), {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const question = (stream: boolean, input = "Cache this answer") => ({ model: CACHED_MODEL, max_output_tokens: 64, stream, input });

  for (const stream of [false, true]) {
    it(`${stream ? "a stream" : "JSON"}: miss, then the same answer byte for byte for the same team; $0 with what it saved`, async () => {
      gateway = await startCachedGateway(start, { store: "memory", ttlSeconds: 60 });
      const { alpha1, alpha2, beta } = await gateway.teamKeys();
      const first = await ask(alpha1.key, question(stream));
      expect(first.status).toBe(200);
      expect(first.headers.get("x-conduit-cache")).toBe("miss");
      const firstText = await first.text();
      expect(firstText).toContain(stream ? "event: response.completed" : '"object":"response"');
      // The same request with its keys in another order, on another key of the same team.
      const { input, ...rest } = question(stream);
      const again = await ask(alpha2.key, { input, ...rest });
      expect(again.status).toBe(200);
      expect(again.headers.get("x-conduit-cache")).toBe("hit");
      expect(again.headers.get("content-type")).toContain(stream ? "text/event-stream" : "application/json");
      expect(await again.text()).toBe(firstText);
      expect(gateway.anthropic.exchanges).toHaveLength(1);
      for (const [key, body] of [
        [beta.key, question(stream)],
        [alpha2.key, question(stream, "Another question")],
      ] as const) {
        const other = await ask(key, body);
        expect(other.headers.get("x-conduit-cache")).toBe("miss");
        await other.text();
      }
      expect(gateway.anthropic.exchanges).toHaveLength(3);

      await gateway.waitForEvents(4);
      const events = gateway.sink.events;
      const paid = events.find((event) => event.key === alpha1.id) as UsageEvent;
      const hit = events.find((event) => event.target === `cache/${CACHED_MODEL}`) as UsageEvent;
      expect(paid.costUsd).toBeGreaterThan(0);
      expect(hit).toMatchObject({ key: alpha2.id, costUsd: 0, inputTokens: 0, outputTokens: 0, model: CACHED_MODEL });
      // Saved: what the stored answer reports in the Responses wire, at list price (cache writes
      // are not in that wire: they count as input there).
      const usage = usageOf(firstText);
      const cached = usage.input_tokens_details.cached_tokens;
      const listPrice = CACHED_MODEL_PRICE;
      const reportedUsd =
        ((usage.input_tokens - cached) * listPrice.input + cached * listPrice.cacheRead + usage.output_tokens * listPrice.output) / 1e6;
      expect(hit.savedUsd).toBeCloseTo(reportedUsd, 12);
      expect(hit.savedUsd).toBeGreaterThan(paid.costUsd * 0.9);
      const spend = (await gateway.admin("GET", `/admin/keys/${alpha2.id}`)).data.spend[0];
      const upstreamCost = events
        .filter((event) => event.key === alpha2.id && event !== hit)
        .reduce((sum, event) => sum + event.costUsd, 0);
      expect(spend.spentUsd).toBeCloseTo(upstreamCost, 12);
    });
  }

  it("x-conduit-cache: off goes upstream, unmarked and not stored; the JSON form of a streamed question is another answer", async () => {
    gateway = await startCachedGateway(start, { store: "memory" });
    const { alpha1 } = await gateway.teamKeys();
    const bypass = await ask(alpha1.key, question(true), { "x-conduit-cache": "off" });
    expect(bypass.status).toBe(200);
    expect(bypass.headers.get("x-conduit-cache")).toBeNull();
    await bypass.text();
    const stored = await ask(alpha1.key, question(true));
    expect(stored.headers.get("x-conduit-cache")).toBe("miss");
    await stored.text();
    const json = await ask(alpha1.key, question(false));
    expect(json.headers.get("x-conduit-cache")).toBe("miss");
    await json.text();
    expect(gateway.anthropic.exchanges).toHaveLength(3);
  });
});
