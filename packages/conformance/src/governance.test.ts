import { type Governance, createGovernance } from "@conduit-ai/governance";
import { createRuntime } from "@conduit-ai/runtime";
import { type MiddlewareDefinition, registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

const ADMIN_KEY = "admin-key-for-conformance-0123456789abcdef";
/** The local runtime answers as model "echo": priced here at $1 000 per million tokens so budgets bite. */
const PRICES = { echo: { input: 1000, output: 1000 } };

/** Stands in for the server's own auth: `x-test-roles` becomes ctx.user. */
const serverAuth: MiddlewareDefinition = {
  name: "test-server-auth",
  order: 30,
  handler: async (ctx, next) => {
    const roles = ctx.header("x-test-roles");
    if (roles !== undefined) ctx.user = { id: "someone", roles: roles ? roles.split(",") : [], permissions: [] };
    await next();
  },
};

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would
type Json = Record<string, any>;

forEachAdapter("governance: the /admin API and virtual keys on /api", ({ start }) => {
  let governance: Governance | undefined;
  const runtimes: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await governance?.close();
    for (const runtime of runtimes.splice(0)) await runtime.close();
  });

  async function serve(admin = true): Promise<
    RunningServer & {
      call: (
        method: string,
        path: string,
        body?: unknown,
        headers?: Record<string, string>,
      ) => Promise<{ status: number; headers: Headers; json: Json; text: string }>;
    }
  > {
    governance = await createGovernance({
      keys: { store: "memory" },
      ...(admin ? { admin: { keys: [ADMIN_KEY] } } : {}),
      prices: PRICES,
      env: {},
    });
    const runtime = createRuntime({ env: {} });
    runtimes.push(runtime);
    const server = await start({
      runtime,
      config: { rateLimit: { enabled: false }, enableMetrics: true },
      setup: (adapter) => {
        adapter.registerMiddleware(serverAuth);
        registerAllRoutes(adapter);
        governance?.install(adapter, { virtualKeyAuth: true });
      },
    });
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(server.url(path), {
        method,
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      let json: Json = {};
      try {
        json = JSON.parse(text);
      } catch {
        // CSV or empty.
      }
      return { status: response.status, headers: response.headers, json, text };
    };
    return Object.assign(server, { call });
  }
  const asAdmin = { authorization: `Bearer ${ADMIN_KEY}` };

  it("mounts no admin surface without an admin credential", async () => {
    const server = await serve(false);
    const answer = await server.call("GET", "/admin/keys", undefined, asAdmin);
    expect(answer.status).toBe(404);
    expect(answer.json.error.code).toBe("ROUTE_NOT_FOUND");
  });

  it("401 without or with a wrong credential, 403 for an authenticated non-admin (server auth or a virtual key), in the envelope", async () => {
    const server = await serve();
    for (const headers of [{}, { authorization: "Bearer wrong-wrong-wrong-wrong-wrong-wrong-wrong" }, { "x-api-key": ADMIN_KEY }] as Array<
      Record<string, string>
    >) {
      const answer = await server.call("GET", "/admin/keys", undefined, headers);
      expect(answer.status).toBe(401);
      expect(answer.json.error).toMatchObject({ code: expect.stringMatching(/^AUTH_/), category: "AUTHENTICATION" });
    }
    expect((await server.call("GET", "/admin/keys", undefined, { "x-test-roles": "reader" })).status).toBe(403);
    const created = await server.call("POST", "/admin/keys", { name: "svc" }, asAdmin);
    const withKey = await server.call("GET", "/admin/teams", undefined, { authorization: `Bearer ${created.json.data.key}` });
    expect(withKey.status).toBe(403);
    expect(withKey.json.error.category).toBe("AUTHORIZATION");
  });

  it("keys: create (secret once), list (hint, no secret), get with spend, patch, rotate with grace, revoke", async () => {
    const server = await serve();
    const team = await server.call(
      "POST",
      "/admin/teams",
      { id: "research", name: "Research", budgets: [{ usd: 50, window: "month" }] },
      asAdmin,
    );
    expect(team.status).toBe(201);
    expect(team.json.data).toMatchObject({ id: "research", name: "Research" });
    const created = await server.call(
      "POST",
      "/admin/keys",
      {
        name: "ci",
        team: "research",
        user: "ana",
        models: ["echo"],
        limits: { rpm: 100 },
        budgets: [
          { usd: 5, window: "day" },
          { usd: 20, window: "total" },
        ],
      },
      asAdmin,
    );
    expect(created.status).toBe(201);
    const { id, key } = created.json.data;
    expect(key).toMatch(/^sk-conduit-[A-Za-z0-9_-]{43}$/);
    expect(created.json.data).toMatchObject({ name: "ci", team: "research", user: "ana", hint: key.slice(-4) });
    const list = await server.call("GET", "/admin/keys", undefined, asAdmin);
    expect(list.json.data).toEqual([expect.objectContaining({ id, hint: key.slice(-4) })]);
    expect(list.text).not.toContain(key);
    const one = await server.call("GET", `/admin/keys/${id}`, undefined, asAdmin);
    expect(one.text).not.toContain(key);
    expect(one.json.data.spend).toEqual([
      { window: "day", usd: 5, spentUsd: 0, remainingUsd: 5, resetsAt: expect.stringMatching(/T00:00:00\.000Z$/) },
      { window: "total", usd: 20, spentUsd: 0, remainingUsd: 20 },
    ]);
    const patched = await server.call("PATCH", `/admin/keys/${id}`, { name: "ci-2", limits: { rpm: 5 } }, asAdmin);
    expect(patched.json.data).toMatchObject({ id, name: "ci-2", limits: { rpm: 5 } });
    expect((await server.call("PATCH", `/admin/keys/${id}`, { team: "other" }, asAdmin)).status).toBe(400);
    expect((await server.call("POST", "/admin/keys", { name: "x", team: "nope" }, asAdmin)).status).toBe(400);
    expect((await server.call("POST", "/admin/keys", { name: "" }, asAdmin)).json.error.code).toBe("VALIDATION_ERROR");

    const rotated = await server.call("POST", `/admin/keys/${id}/rotate`, { graceSeconds: 60 }, asAdmin);
    expect(rotated.json.data.key).not.toBe(key);
    const generate = (credential: string) =>
      server.call("POST", "/api/agent/generate", { input: { text: "hi" }, model: "echo" }, { "x-api-key": credential });
    expect((await generate(key)).status).toBe(200);
    expect((await generate(rotated.json.data.key)).status).toBe(200);
    const immediate = await server.call("POST", `/admin/keys/${id}/rotate`, {}, asAdmin);
    expect((await generate(rotated.json.data.key)).status).toBe(401);
    expect((await generate(immediate.json.data.key)).status).toBe(200);

    expect((await server.call("DELETE", `/admin/keys/${id}`, undefined, asAdmin)).json.data).toEqual({ id, revoked: true });
    expect((await generate(immediate.json.data.key)).status).toBe(401);
    expect((await server.call("GET", `/admin/keys/${id}`, undefined, asAdmin)).json.error.code).toBe("KEY_NOT_FOUND");
    expect((await server.call("DELETE", "/admin/teams/research", undefined, asAdmin)).status).toBe(200);
    expect((await server.call("GET", "/admin/teams", undefined, asAdmin)).json.data).toEqual([]);
  });

  it("/api refusals in the envelope: 401 missing/unknown key, 403 model, 429 rpm with retry-after, 429 BUDGET_EXCEEDED final", async () => {
    const server = await serve();
    const missing = await server.call("POST", "/api/agent/generate", { input: { text: "hi" } });
    expect(missing.status).toBe(401);
    expect(missing.json.error).toMatchObject({ code: "MISSING_KEY", category: "AUTHENTICATION", details: { reason: "missing_key" } });
    expect(
      (await server.call("POST", "/api/agent/generate", { input: { text: "hi" } }, { authorization: "Bearer sk-conduit-nope" })).json.error
        .code,
    ).toBe("INVALID_KEY");
    const limited = (await server.call("POST", "/admin/keys", { name: "l", models: ["echo"], limits: { rpm: 2 } }, asAdmin)).json.data.key;
    const model = await server.call("POST", "/api/agent/generate", { input: { text: "hi" }, model: "gpt-5" }, { "x-api-key": limited });
    expect(model.status).toBe(403);
    expect(model.json.error.message).toContain("gpt-5");
    expect((await server.call("POST", "/api/agent/generate", { input: { text: "hi" } }, { "x-api-key": limited })).status).toBe(403);
    const ask = () => server.call("POST", "/api/agent/generate", { input: { text: "hi" }, model: "echo" }, { "x-api-key": limited });
    const answers = [await ask(), await ask(), await ask()];
    expect(answers.map((answer) => answer.status).slice(0, 2)).toEqual([200, 200]);
    // The rpm counter may have rolled over to a new minute between the calls; then all three pass.
    if (answers[2]?.status !== 200) {
      expect(answers[2]?.status).toBe(429);
      expect(answers[2]?.json.error.code).toBe("RATE_LIMITED");
      expect(Number(answers[2]?.headers.get("retry-after"))).toBeGreaterThan(0);
    }

    // $1 000 per million tokens: a call of ~20 tokens costs ~$0.02, and so does its reservation (input + maxTokens 20).
    const budgeted = (await server.call("POST", "/admin/keys", { name: "b", budgets: [{ usd: 0.05, window: "total" }] }, asAdmin)).json
      .data;
    const spend = async () => (await server.call("GET", `/admin/keys/${budgeted.id}`, undefined, asAdmin)).json.data.spend[0];
    const statuses: number[] = [];
    let servedCost = 0;
    for (let index = 0; index < 4; index++) {
      const answer = await server.call(
        "POST",
        "/api/agent/generate",
        { input: { text: "hi" }, maxTokens: 20 },
        { authorization: `Bearer ${budgeted.key}` },
      );
      statuses.push(answer.status);
      if (answer.status === 200) servedCost += (answer.json.data.usage.inputTokens + answer.json.data.usage.outputTokens) * 0.001;
      if (answer.status === 429) {
        expect(answer.json.error).toMatchObject({ code: "BUDGET_EXCEEDED", details: { reason: "budget_exceeded" } });
        expect(answer.headers.get("x-should-retry")).toBe("false");
        expect(answer.headers.get("retry-after")).toBeNull();
      }
      await expect.poll(async () => (await spend()).spentUsd > 0 || answer.status !== 200).toBe(true);
    }
    expect(statuses).toContain(429);
    await expect.poll(async () => (await spend()).spentUsd).toBeCloseTo(servedCost, 9);
    // Spend never passes the budget by more than one call.
    expect(servedCost).toBeLessThanOrEqual(0.05 + 0.025);
  });

  it("a stream settles from its final finish usage; usage by key as JSON and CSV; per-team metrics", async () => {
    const server = await serve();
    await server.call("POST", "/admin/teams", { id: "ops", name: "Ops" }, asAdmin);
    const created = (await server.call("POST", "/admin/keys", { name: "streamer", team: "ops" }, asAdmin)).json.data;
    const stream = await fetch(server.url("/api/agent/stream"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": created.key },
      body: JSON.stringify({ input: { text: "stream please" }, model: "echo" }),
    });
    expect(stream.status).toBe(200);
    const frames = await stream.text();
    const finish = frames.split("\n").find((line) => line.startsWith("data:") && line.includes('"finish"')) as string;
    const usage = JSON.parse(finish.slice(5)).usage ?? JSON.parse(finish.slice(5)).data.usage;
    const expected = (usage.inputTokens + usage.outputTokens) * 0.001;
    await expect
      .poll(async () => (await server.call("GET", "/admin/usage?groupBy=key", undefined, asAdmin)).json.data)
      .toEqual([
        {
          group: created.id,
          name: "streamer",
          requests: 1,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: expect.closeTo(expected, 9),
          cacheHitRatio: 0,
          savedUsd: 0,
          estimatedRequests: 0,
        },
      ]);
    const csv = await server.call("GET", "/admin/usage?groupBy=team&format=csv", undefined, asAdmin);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.text.split("\r\n")[0]).toBe(
      "group,name,requests,inputTokens,outputTokens,cacheReadTokens,cacheWriteTokens,costUsd,estimatedRequests,cacheHitRatio,savedUsd",
    );
    expect(csv.text.split("\r\n")[1]).toMatch(/^ops,Ops,1,/);
    expect((await server.call("GET", "/admin/usage?groupBy=planet", undefined, asAdmin)).status).toBe(400);
    // The per-team figures are an admin's to read (metrics-access.test.ts).
    const metrics = await (await fetch(server.url("/api/metrics"), { headers: asAdmin })).text();
    expect(metrics).toContain('conduit_governance_requests_total{team="ops"} 1');
    expect(metrics).not.toContain(created.key);
    expect(metrics).not.toContain(created.id);
  });
});
