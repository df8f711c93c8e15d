import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type GovernedGateway, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// What a caller (or a stored record) must never do to the gate on the shared Redis store: a
// number the counters cannot hold fails half-way through the admit script (a leaked lease, a
// blocked minute, 503 for everyone); a record with a lone surrogate fails cjson for every call
// of that key or team; a body that names `model` twice is checked on one and served on the other.
let redis: Redis;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
});
afterAll(() => redis.disconnect());

const chat = (extra: Record<string, unknown>) => ({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "hi" }], ...extra });
const messages = (extra: Record<string, unknown> = {}) => ({ ...chat({ max_tokens: 16 }), ...extra });

forEachAdapter("governance: hostile numbers, records and bodies never break the gate", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });
  const serve = async () => {
    gateway = await startGovernedGateway(start, { store: "redis", redis });
    return gateway;
  };

  it("an output cap above 10^7 is a 400 naming the field on every surface, and counts nothing (no lease, no rpm)", async () => {
    const server = await serve();
    // One call a minute and one at a time: a leaked lease or a counted minute would refuse the last call.
    const { key } = await server.mint({ limits: { rpm: 1, concurrency: 1, queueTimeoutMs: 50 } });
    const huge = 1e15;
    const anthropic = await server.post("/v1/messages", key, messages({ max_tokens: huge }));
    expect(anthropic.status).toBe(400);
    expect(anthropic.json).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(anthropic.json.error.message).toContain("max_tokens");
    for (const field of ["max_tokens", "max_completion_tokens"]) {
      const answer = await server.post("/v1/chat/completions", key, chat({ [field]: huge }));
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ type: "invalid_request_error", param: field });
    }
    const responses = await server.post("/v1/responses", key, { model: "claude-haiku-4-5", input: "hi", max_output_tokens: huge });
    expect(responses.status).toBe(400);
    expect(responses.json.error).toMatchObject({ type: "invalid_request_error", param: "max_output_tokens" });
    const codex = await server.post("/backend-api/codex/responses", key, { model: "gpt-5-codex", input: "hi", max_output_tokens: huge });
    expect(codex.status).toBe(400);
    expect(codex.json.error.message).toContain("max_output_tokens");
    const api = await server.post("/api/agent/generate", key, { input: { text: "hi" }, maxTokens: huge });
    expect(api.status).toBe(400);
    expect(api.json.error).toMatchObject({ code: "VALIDATION_ERROR", details: { errors: [{ field: "maxTokens" }] } });
    expect(server.anthropic.exchanges).toHaveLength(0);
    expect(server.codex.requests).toHaveLength(0);
    // The store was never half-written: the key's one call of the minute and its one slot are free.
    expect((await server.post("/v1/messages", key, messages())).status).toBe(200);
  });

  it("an output cap above the model's documented limit is a 400 naming the field and the limit, before anything is counted", async () => {
    const server = await serve();
    const { key } = await server.mint({ limits: { rpm: 1 } });
    // claude-3-5-haiku answers at most 8192 output tokens.
    const anthropic = await server.post("/v1/messages", key, { ...messages(), model: "claude-3-5-haiku-20241022", max_tokens: 9000 });
    expect(anthropic.status).toBe(400);
    expect(anthropic.json.error.message).toContain("max_tokens");
    expect(anthropic.json.error.message).toContain("8192");
    const chatAnswer = await server.post("/v1/chat/completions", key, chat({ model: "gpt-4o", max_completion_tokens: 20_000 }));
    expect(chatAnswer.status).toBe(400);
    expect(chatAnswer.json.error).toMatchObject({ type: "invalid_request_error", param: "max_completion_tokens" });
    expect(chatAnswer.json.error.message).toContain("16384");
    const api = await server.post("/api/agent/generate", key, { input: { text: "hi" }, model: "claude-3-haiku", maxTokens: 5000 });
    expect(api.status).toBe(400);
    expect(api.json.error.message).toContain("4096");
    expect(server.anthropic.exchanges).toHaveLength(0);
    // Nothing was counted: the key's one call of the minute is still free, at the model's limit.
    expect((await server.post("/v1/messages", key, { ...messages(), model: "claude-3-5-haiku-20241022", max_tokens: 8192 })).status).toBe(
      200,
    );
  });

  it("a key or team whose stored name has a lone surrogate keeps working; an unreadable record refuses its key alone (403, never 503)", async () => {
    const server = await serve();
    await server.governance.store.createTeam({ id: "surrogates", name: "team\ud800", createdAt: new Date().toISOString() });
    const odd = await server.mint({ name: "key\udc00", team: "surrogates", metadata: { note: "\ud83d" } });
    expect((await server.post("/v1/messages", odd.key, messages())).status).toBe(200);
    expect((await server.post("/api/agent/generate", odd.key, { input: { text: "hi" } })).status).toBe(200);

    const broken = await server.mint({ name: "broken" });
    await redis.hset(`{${server.namespace}:k:${broken.id}}:key:${broken.id}`, "config", '{"id":"broken","name":');
    const refused = await server.post("/v1/messages", broken.key, messages());
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ type: "error", error: { type: "permission_error" } });
    expect(refused.json.error.message).toContain("cannot be read");
    const api = await server.post("/api/agent/generate", broken.key, { input: { text: "hi" } });
    expect(api.status).toBe(403);
    expect(api.json.error).toMatchObject({ code: "INVALID_KEY_RECORD", category: "AUTHORIZATION" });
    // Every other key still works.
    const healthy = await server.mint({ name: "healthy" });
    expect((await server.post("/v1/messages", healthy.key, messages())).status).toBe(200);
  });

  it("a gated body naming a top-level key twice is a 400 naming it, before anything goes upstream", async () => {
    const server = await serve();
    // Allowed haiku only: a parser keeping the first `model` would serve opus.
    const { key } = await server.mint({ models: ["claude-haiku-*", "gpt-5*"] });
    const twice = (first: string, last: string, rest: string) => `{"model":"${first}",${rest},"model":"${last}"}`;
    const rest = '"max_tokens":16,"messages":[{"role":"user","content":"hi, \\"model\\":\\"x\\""}]';
    const anthropic = await server.post("/v1/messages", key, twice("claude-opus-4", "claude-haiku-4-5", rest));
    expect(anthropic.status).toBe(400);
    expect(anthropic.json).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(anthropic.json.error.message).toContain('"model"');
    const escaped = await server.post("/v1/messages", key, `{"mod\\u0065l":"claude-opus-4",${rest},"model":"claude-haiku-4-5"}`);
    expect(escaped.status).toBe(400);
    for (const [path, fields] of [
      ["/v1/chat/completions", '"messages":[{"role":"user","content":"hi"}]'],
      ["/v1/responses", '"input":"hi"'],
    ] as const) {
      const answer = await server.post(path, key, twice("claude-opus-4", "claude-haiku-4-5", fields));
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ type: "invalid_request_error", param: "model" });
    }
    const codex = await server.post("/backend-api/codex/responses", key, twice("gpt-4o", "gpt-5-codex", '"input":"hi"'));
    expect(codex.status).toBe(400);
    expect(codex.json.error.message).toContain('"model"');
    expect(server.anthropic.exchanges).toHaveLength(0);
    expect(server.codex.requests).toHaveLength(0);
    // Nested objects may repeat names of the top level: only the top level counts.
    expect((await server.post("/v1/messages", key, messages({ metadata: { user_id: "u", model: "nested" } }))).status).toBe(200);
  });
});
