import { type ConduitProxy, chatCompletionsFor, createProxy } from "@conduit-ai/proxy";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import {
  type Gate,
  type GateAdmission,
  type GateRefusal,
  type GateRequest,
  type GateUsage,
  registerAllRoutes,
} from "@conduit-ai/server-core";
import { mountConsole } from "@conduit-ai/console";
import { createAdminCheck } from "@conduit-ai/governance";
import { afterEach, beforeEach, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// Governance's enforcement on the proxy surfaces: with a gate, every call is admitted by it (it
// replaces clientKeys), refusals come in the surface's shape, and settle receives upstream's usage.
const GOOD = "virtual-key-good-0123456789";
const BROKE = "virtual-key-broke-0123456789";

/** A small in-memory gate: one good key, one over its total budget, everything else unknown. */
class TestGate implements Gate {
  readonly requests: GateRequest[] = [];
  readonly settled: GateUsage[] = [];
  released = 0;

  async admit(request: GateRequest): Promise<GateAdmission | GateRefusal> {
    this.requests.push(request);
    if (request.credential === BROKE)
      return { refused: true, status: 429, reason: "budget_exceeded", message: "Budget of $1.00 (total) exhausted", final: true };
    if (request.credential !== GOOD)
      return { refused: true, status: 401, reason: "invalid_key", message: "Unknown virtual key", final: true };
    return {
      identity: { keyId: "key-1", name: "good" },
      settle: async (usage) => void this.settled.push(usage),
      release: async () => void this.released++,
    };
  }
}

const ADMIN_KEY = "proxy-gate-admin-key-for-the-conformance-suite-0123";
const ASK = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] };

forEachAdapter("proxy gate", ({ start }) => {
  let fake: FakeAnthropic;
  let proxy: ConduitProxy;
  let gate: TestGate;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-a");
    gate = new TestGate();
  });
  afterEach(async () => {
    await proxy?.close();
    await fake.close();
  });

  async function serve(options: { console?: boolean } = {}) {
    proxy = createProxy(
      { enabled: true, retryBaseMs: 5, upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: "sk-a" }] },
      { gate, chatCompletions: chatCompletionsFor() },
    );
    return start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        registerAllRoutes(adapter, undefined, { proxy });
        if (options.console) mountConsole(adapter, { checkAdmin: createAdminCheck({ keys: [ADMIN_KEY] }), adminKeys: [ADMIN_KEY] });
      },
    });
  }
  const post = (url: string, key: string, body: unknown) =>
    fetch(url, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });
  const waitFor = async (check: () => boolean) => {
    for (let tries = 0; tries < 100 && !check(); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  };

  it("admits with the credential, model, input estimate and max_tokens; settles with upstream's exact usage (JSON and stream)", async () => {
    const server = await serve();
    const json = await post(server.url("/v1/messages"), GOOD, ASK);
    const message = (await json.json()) as { usage: { input_tokens: number; output_tokens: number } };
    expect(json.status).toBe(200);
    expect(gate.requests[0]).toMatchObject({ credential: GOOD, surface: "anthropic", model: "claude-sonnet-4-5", maxOutputTokens: 64 });
    expect(gate.requests[0]!.estimatedInputTokens).toBeGreaterThan(0);
    await waitFor(() => gate.settled.length === 1);
    expect(gate.settled[0]).toMatchObject({
      model: "claude-sonnet-4-5",
      inputTokens: message.usage.input_tokens,
      outputTokens: message.usage.output_tokens,
      status: 200,
    });
    const stream = await post(server.url("/v1/messages"), GOOD, { ...ASK, stream: true });
    const text = await stream.text();
    const delta = [...text.matchAll(/"output_tokens":(\d+)/g)].at(-1)?.[1];
    await waitFor(() => gate.settled.length === 2);
    expect(gate.settled[1]).toMatchObject({ outputTokens: Number(delta), status: 200 });
    expect(gate.released).toBe(0);
  });

  it("a stream the client leaves settles with what upstream reported so far", async () => {
    fake.eventGapMs = 200;
    const server = await serve();
    const controller = new AbortController();
    const response = await fetch(server.url("/v1/messages"), {
      method: "POST",
      headers: { "x-api-key": GOOD, "content-type": "application/json" },
      body: JSON.stringify({ ...ASK, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("message_start");
    controller.abort();
    await waitFor(() => gate.settled.length === 1);
    const input = Number(/"input_tokens":(\d+)/.exec(first)?.[1]);
    expect(gate.settled[0]).toMatchObject({ inputTokens: input });
    expect(gate.released).toBe(0);
  });

  it("refusals in the surface's shape: 401 unknown key, 429 budget_exceeded (final, no retry-after)", async () => {
    const server = await serve();
    const unknown = await post(server.url("/v1/messages"), "sk-nope-0123456789abcdef", ASK);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("x-should-retry")).toBe("false");
    expect(await unknown.json()).toMatchObject({ type: "error", error: { type: "authentication_error", message: "Unknown virtual key" } });
    const broke = await post(server.url("/v1/messages"), BROKE, ASK);
    expect(broke.status).toBe(429);
    expect(broke.headers.get("x-should-retry")).toBe("false");
    expect(broke.headers.get("retry-after")).toBeNull();
    expect(await broke.json()).toMatchObject({ type: "error", error: { type: "budget_exceeded" } });
    const chat = await post(server.url("/v1/chat/completions"), BROKE, {
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(chat.status).toBe(429);
    expect(chat.headers.get("x-should-retry")).toBe("false");
    expect(await chat.json()).toMatchObject({ error: { type: "insufficient_quota", code: "budget_exceeded", param: null } });
    expect(fake.exchanges).toHaveLength(0);
  });

  it("the console's live feed names the key, model and tokens of each proxied call, never its secret or content", async () => {
    const server = await serve({ console: true });
    const origin = `http://127.0.0.1:${server.port}`;
    const session = await fetch(server.url("/console/api/session"), {
      method: "POST",
      headers: { origin, "sec-fetch-site": "same-origin", "content-type": "application/json" },
      body: JSON.stringify({ credential: ADMIN_KEY }),
    });
    expect(session.status).toBe(200);
    const cookie = (session.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const controller = new AbortController();
    const live = await fetch(server.url("/console/api/live"), { headers: { cookie }, signal: controller.signal });
    expect(live.headers.get("content-type")).toContain("text/event-stream");
    const json = await post(server.url("/v1/messages"), GOOD, ASK);
    const message = (await json.json()) as { usage: { input_tokens: number; output_tokens: number } };
    const requestId = json.headers.get("x-request-id") as string;
    const reader = live.body!.getReader();
    let seen = "";
    while (!seen.includes(requestId)) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const line = seen.split("\n").find((text) => text.startsWith("data: ") && text.includes(requestId)) as string;
    const event = JSON.parse(line.slice(6)) as { data?: Record<string, unknown> } & Record<string, unknown>;
    const entry = (event.data ?? event) as Record<string, unknown>;
    expect(entry).toMatchObject({
      route: "/v1/messages",
      status: 200,
      key: "key-1",
      keyName: "good",
      model: "claude-sonnet-4-5",
      inputTokens: message.usage.input_tokens,
      outputTokens: message.usage.output_tokens,
    });
    expect(seen).not.toContain(GOOD);
    expect(seen).not.toContain("Hello from the fake");
  });
});
