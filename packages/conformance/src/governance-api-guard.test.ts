import { type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { structuredAnswers } from "./fixtures/structured-answers.js";
import { GATEWAY_ADMIN_KEY, type GovernedGateway, type Json, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// With `auth.type: "virtual-key"`, no /api route is open by accident: memory, tools, MCP and the
// workflows ask for a key like /api/agent/* does, and the workflows' model calls (several a
// request) are admitted and charged to that key one by one — a key without budget gets the
// refusal, not a simulated 200.
const PRICES = { "gpt-4o-mini": { input: 1, output: 4 } };
const OPTIMIZE = { prompt: "write some stuff about dogs", style: "precise", optimizeFor: "cost", provider: "openai" };

let openai: FakeOpenAI;
beforeAll(async () => {
  openai = await startFakeOpenAI({ answer: structuredAnswers("valid") });
});
afterAll(() => openai.close());

forEachAdapter("governance: every /api route behind the virtual key", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  const call = async (server: GovernedGateway, method: string, path: string, key?: string, body?: unknown) => {
    const response = await fetch(server.url(path), {
      method,
      headers: { ...(key ? { "x-api-key": key } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: (text.startsWith("{") ? JSON.parse(text) : {}) as Json };
  };

  it("memory, tools, MCP and workflows: 401 MISSING_KEY without a key, INVALID_KEY with a wrong one; probes stay open", async () => {
    gateway = await startGovernedGateway(start, { prices: PRICES, openai: { baseURL: openai.baseURL, models: ["gpt-4o-mini"] } });
    const { key } = await gateway.mint({});
    const routes: Array<[string, string, unknown?]> = [
      ["GET", "/api/memory/sessions"],
      ["GET", "/api/tools"],
      ["POST", "/api/tools/execute", { name: "calculator", arguments: { expression: "1+1" } }],
      ["GET", "/api/mcp/servers"],
      ["POST", "/api/ai/optimize-parameters", OPTIMIZE],
    ];
    for (const [method, path, body] of routes) {
      const missing = await call(gateway, method, path, undefined, body);
      expect(missing.status, `${method} ${path}`).toBe(401);
      expect(missing.json.error.code, `${method} ${path}`).toBe("MISSING_KEY");
      const wrong = await call(gateway, method, path, "sk-conduit-not-a-key", body);
      expect(wrong.status, `${method} ${path}`).toBe(401);
      expect(wrong.json.error.code, `${method} ${path}`).toBe("INVALID_KEY");
      expect((await call(gateway, method, path, key, body)).status, `${method} ${path}`).toBe(200);
    }
    for (const probe of ["/api/health", "/api/health/live", "/api/health/ready", "/api/health/detailed"])
      expect((await call(gateway, "GET", probe)).status, probe).toBe(200);
  });

  it("a workflow's model calls are charged to the caller's key: spend and history agree with the calls made", async () => {
    gateway = await startGovernedGateway(start, { prices: PRICES, openai: { baseURL: openai.baseURL, models: ["gpt-4o-mini"] } });
    const { id, key } = await gateway.mint({ budgets: [{ usd: 10, window: "total" }] });
    const answered = await call(gateway, "POST", "/api/ai/optimize-parameters", key, OPTIMIZE);
    expect(answered.status).toBe(200);
    expect(answered.json.data).toMatchObject({ simulated: false, provider: "openai" });
    const server = gateway;
    const history = async () => {
      const response = await fetch(server.url("/admin/usage?groupBy=key"), { headers: { authorization: `Bearer ${GATEWAY_ADMIN_KEY}` } });
      return ((await response.json()) as Json).data.find((row: Json) => row.group === id) as Json | undefined;
    };
    await expect.poll(history, { timeout: 5_000 }).toBeDefined();
    const row = (await history()) as Json;
    expect(row.requests).toBe(1);
    expect(row.inputTokens).toBeGreaterThan(0);
    expect(row.costUsd).toBeCloseTo((row.inputTokens * 1 + row.outputTokens * 4) / 1e6, 12);
    expect((await server.spentUsd(id)).total).toBeCloseTo(row.costUsd, 12);
  });

  it("a key whose budget is spent gets the refusal from a workflow, not a simulated answer", async () => {
    gateway = await startGovernedGateway(start, { prices: PRICES, openai: { baseURL: openai.baseURL, models: ["gpt-4o-mini"] } });
    const { key } = await gateway.mint({ budgets: [{ usd: 0, window: "total" }] });
    const refused = await call(gateway, "POST", "/api/ai/optimize-parameters", key, OPTIMIZE);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe("BUDGET_EXCEEDED");
  });
});
