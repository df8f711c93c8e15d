import { afterEach, expect, it } from "vitest";
import { GATEWAY_ADMIN_KEY, type GovernedGateway, type Json, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// `/api/agent/*` calls the gated runtime, the one adapter every AI surface goes through: a
// stream is refused with a status before its first byte and charged after its last, an
// embedding is admitted and charged nothing, and a body the route refuses counts nowhere.
/** The local runtime answers as model "echo" (named, so it is priced): $1 000 per million tokens, so budgets bite. */
const PRICES = { echo: { input: 1000, output: 1000 } };

forEachAdapter("governance: /api/agent/* on the gated runtime", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  const history = async (server: GovernedGateway, id: string): Promise<Json | undefined> => {
    const response = await fetch(server.url("/admin/usage?groupBy=key"), { headers: { authorization: `Bearer ${GATEWAY_ADMIN_KEY}` } });
    return ((await response.json()) as Json).data.find((row: Json) => row.group === id);
  };

  it("a refused stream is a 429 envelope before the first byte; an admitted one is charged its finish usage after the last", async () => {
    gateway = await startGovernedGateway(start, { prices: PRICES });
    const spent = await gateway.mint({ budgets: [{ usd: 0, window: "total" }] });
    const refused = await gateway.post("/api/agent/stream", spent.key, { input: { text: "stream please" }, model: "echo" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toContain("application/json");
    expect(refused.json.error).toMatchObject({ code: "BUDGET_EXCEEDED", details: { reason: "budget_exceeded" } });
    expect(refused.headers.get("x-should-retry")).toBe("false");
    expect(refused.text).not.toContain("event:");

    const { id, key } = await gateway.mint({ budgets: [{ usd: 10, window: "total" }], limits: { rpm: 1 } });
    const stream = await gateway.post("/api/agent/stream", key, { input: { text: "stream please" }, model: "echo" });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const finish = stream.text.split("\n").find((line) => line.startsWith("data:") && line.includes('"finish"')) as string;
    const usage = JSON.parse(finish.slice(5)).usage ?? JSON.parse(finish.slice(5)).data.usage;
    const server = gateway;
    await expect
      .poll(() => history(server, id), { timeout: 5_000 })
      .toMatchObject({
        requests: 1,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        estimatedRequests: 0,
      });
    expect((await server.spentUsd(id)).total).toBeCloseTo(((usage.inputTokens + usage.outputTokens) * 1000) / 1e6, 9);
    // The key's one call of the minute is spent: the next stream is refused before it opens.
    const again = await server.post("/api/agent/stream", key, { input: { text: "stream please" }, model: "echo" });
    // The rpm counter may have rolled over to a new minute between the calls; then it passes.
    if (again.status !== 200) {
      expect(again.status).toBe(429);
      expect(again.json.error.code).toBe("RATE_LIMITED");
      expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(again.headers.get("x-should-retry")).toBeNull();
    }
  });

  it("a body the route refuses (400) is counted nowhere: the key's one call of the minute stays free", async () => {
    gateway = await startGovernedGateway(start, { prices: PRICES });
    const { id, key } = await gateway.mint({ limits: { rpm: 1 } });
    for (const path of ["/api/agent/generate", "/api/agent/stream", "/api/agent/embed"]) {
      const invalid = await gateway.post(path, key, { input: { text: 5 }, text: 5 });
      expect(invalid.status, path).toBe(400);
      expect(invalid.json.error.code, path).toBe("VALIDATION_ERROR");
    }
    expect((await gateway.post("/api/agent/generate", key, { input: { text: "hi" } })).status).toBe(200);
    const server = gateway;
    await expect.poll(() => history(server, id), { timeout: 5_000 }).toMatchObject({ requests: 1 });
  });

  it("an embedding is admitted for the key (its refusals apply) and charged nothing", async () => {
    gateway = await startGovernedGateway(start, { prices: PRICES });
    const spent = await gateway.mint({ budgets: [{ usd: 0, window: "total" }] });
    // Named "echo", the reservation is priced (the local embedder answers a request naming no model).
    const refused = await gateway.post("/api/agent/embed", spent.key, { text: "embed me", model: "echo" });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe("BUDGET_EXCEEDED");
    const { id, key } = await gateway.mint({ budgets: [{ usd: 10, window: "total" }] });
    const one = await gateway.post("/api/agent/embed", key, { text: "embed me" });
    expect(one.status).toBe(200);
    expect(one.json.data.embedding.length).toBeGreaterThan(0);
    const many = await gateway.post("/api/agent/embed-many", key, { texts: ["a", "b"] });
    expect(many.status).toBe(200);
    expect(many.json.data.embeddings).toHaveLength(2);
    expect(await gateway.spentUsd(id)).toEqual({ day: 0, total: 0 });
    expect(await history(gateway, id)).toBeUndefined();
  });

  it("a request without a key is refused before the route, final: 401 with x-should-retry false", async () => {
    gateway = await startGovernedGateway(start, { prices: PRICES });
    const response = await fetch(gateway.url("/api/agent/stream"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "hi" } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(((await response.json()) as Json).error.code).toBe("MISSING_KEY");
  });
});
