import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryPoolStore, type ProxyConfigInput } from "../index.js";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../testing/index.js";

let fake: FakeAnthropic | undefined;
let server: ProxyServer | undefined;

afterEach(async () => {
  await server?.stop();
  await fake?.close();
  server = undefined;
  fake = undefined;
});

async function setup(config: ProxyConfigInput = {}): Promise<{ fake: FakeAnthropic; server: ProxyServer; sdk: Anthropic }> {
  fake = await startFakeAnthropic();
  for (const key of ["sk-a", "sk-b", "sk-c"]) fake.credentials.add(key);
  server = await startProxyServer({
    upstream: { anthropic: fake.url },
    accounts: [
      { id: "a", type: "api-key", apiKey: "sk-a", priority: 0 },
      { id: "b", type: "api-key", apiKey: "sk-b", priority: 1 },
    ],
    ...config,
  });
  return { fake, server, sdk: new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url, maxRetries: 0 }) };
}

const ASK = { model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user" as const, content: "x" }] };
const credentialsUsed = (upstream: FakeAnthropic) => upstream.exchanges.map((exchange) => exchange.credential);
const rows = async (proxy: ProxyServer) => Object.fromEntries((await proxy.proxy.pool.rows()).map((row) => [row.id, row]));

describe("account pool", () => {
  it("fill-first uses the lowest priority while it is healthy; round-robin alternates", async () => {
    const first = await setup();
    for (let index = 0; index < 3; index++) await first.sdk.messages.create(ASK);
    expect(credentialsUsed(first.fake)).toEqual(["sk-a", "sk-a", "sk-a"]);
    await afterEachNow();
    const second = await setup({ strategy: "round-robin" });
    for (let index = 0; index < 4; index++) await second.sdk.messages.create(ASK);
    expect(credentialsUsed(second.fake)).toEqual(["sk-a", "sk-b", "sk-a", "sk-b"]);
  });

  it("a 429 with a reset cools the account (extend-only) and the request moves on transparently", async () => {
    const { fake, server, sdk } = await setup();
    fake.script("sk-a", {
      status: 429,
      headers: { "retry-after": "120" },
      body: JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }),
    });
    const message = await sdk.messages.create(ASK);
    expect(message.type).toBe("message");
    expect(credentialsUsed(fake)).toEqual(["sk-a", "sk-b"]);
    const state = await rows(server);
    expect(state.a?.status).toBe("cooling");
    const until = Date.parse(state.a?.cooldownUntil ?? "");
    expect(until).toBeGreaterThan(Date.now() + 100_000);
    // A shorter reset later never shortens the cooldown.
    await server.proxy.pool.cooldown("a", Date.now() + 1_000, "shorter");
    expect(Date.parse((await rows(server)).a?.cooldownUntil ?? "")).toBe(until);
    // While a cools, b serves.
    await sdk.messages.create(ASK);
    expect(credentialsUsed(fake).at(-1)).toBe("sk-b");
  });

  it("reads the reset from the unified headers, capped at the longest window", async () => {
    const { fake, server, sdk } = await setup();
    const farFuture = Math.floor(Date.now() / 1000) + 60 * 24 * 3600;
    fake.script("sk-a", {
      status: 429,
      headers: { "anthropic-ratelimit-unified-status": "rejected", "anthropic-ratelimit-unified-reset": String(farFuture) },
      body: "{}",
    });
    await sdk.messages.create(ASK);
    const until = Date.parse((await rows(server)).a?.cooldownUntil ?? "");
    expect(until).toBeLessThanOrEqual(Date.now() + 7 * 24 * 3600 * 1000);
    expect(until).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
  });

  it("a 429 without a reset goes back to the client as is", async () => {
    const { fake, server, sdk } = await setup();
    const body = JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "no reset" } });
    fake.script("sk-a", { status: 429, body });
    const response = await sdk.messages
      .create(ASK)
      .asResponse()
      .catch((error: unknown) => error);
    expect(response).toBeInstanceOf(Anthropic.RateLimitError);
    expect(credentialsUsed(fake)).toEqual(["sk-a"]);
    expect((await rows(server)).a?.status).toBe("active");
    const raw = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY },
      body: JSON.stringify(ASK),
    });
    expect(raw.status).toBe(200);
    fake.script("sk-a", { status: 429, body });
    const again = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY },
      body: JSON.stringify(ASK),
    });
    expect(again.status).toBe(429);
    expect(await again.text()).toBe(body);
  });

  it("every account cooling → 429 rate_limit_error with retry-after = the soonest reset", async () => {
    const { fake, sdk, server } = await setup();
    fake.script("sk-a", { status: 429, headers: { "retry-after": "300" }, body: "{}" });
    fake.script("sk-b", { status: 429, headers: { "retry-after": "30" }, body: "{}" });
    const error = await sdk.messages.create(ASK).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const raw = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY },
      body: JSON.stringify(ASK),
    });
    expect(raw.status).toBe(429);
    const seconds = Number(raw.headers.get("retry-after"));
    expect(seconds).toBeGreaterThan(20);
    expect(seconds).toBeLessThanOrEqual(30);
    expect(await raw.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
  });

  it("529/5xx: bounded retries with backoff on the same account, then the next", async () => {
    const { fake, sdk } = await setup({ maxRetries: 2 });
    const overloaded = { status: 529, body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) };
    fake.script("sk-a", overloaded, overloaded, overloaded);
    await sdk.messages.create(ASK);
    expect(credentialsUsed(fake)).toEqual(["sk-a", "sk-a", "sk-a", "sk-b"]);
    // One blip: retried on the same account.
    fake.script("sk-a", { status: 503, body: "{}" });
    await sdk.messages.create(ASK);
    expect(credentialsUsed(fake).slice(4)).toEqual(["sk-a", "sk-a"]);
  });

  it("a concurrent 429 storm: every request lands on the healthy account, none fails or hangs", async () => {
    const { fake, sdk, server } = await setup({ strategy: "round-robin" });
    const limited = { status: 429, headers: { "retry-after": "120", "anthropic-ratelimit-unified-status": "rejected" }, body: "{}" };
    fake.script("sk-a", ...Array.from({ length: 30 }, () => limited));
    const messages = await Promise.all(Array.from({ length: 30 }, () => sdk.messages.create(ASK)));
    expect(messages.every((message) => message.type === "message")).toBe(true);
    const served = fake.exchanges.filter((exchange) => exchange.status === 200);
    expect(served).toHaveLength(30);
    expect(served.every((exchange) => exchange.credential === "sk-b")).toBe(true);
    expect((await rows(server)).a?.status).toBe("cooling");
    await expect.poll(async () => (await rows(server)).b?.inFlight).toBe(0);
  });

  it("a storm on every account ends with upstream's last answer, not a hang", async () => {
    const { fake, server } = await setup({ maxRetries: 1 });
    const overloaded = { status: 529, body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) };
    fake.script("sk-a", overloaded, overloaded);
    fake.script("sk-b", overloaded, overloaded);
    const raw = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY },
      body: JSON.stringify(ASK),
    });
    expect(raw.status).toBe(529);
    expect(await raw.json()).toMatchObject({ error: { type: "overloaded_error" } });
    expect(fake.exchanges).toHaveLength(4);
    await expect.poll(async () => (await rows(server)).a?.inFlight).toBe(0);
  });

  it("401/403 disables an API-key account with the reason; the request moves on", async () => {
    const { fake, sdk, server } = await setup();
    fake.credentials.delete("sk-a");
    await sdk.messages.create(ASK);
    expect(credentialsUsed(fake)).toEqual(["sk-a", "sk-b"]);
    const state = await rows(server);
    expect(state.a).toMatchObject({ status: "disabled", disabledReason: "upstream answered 401" });
    await sdk.messages.create(ASK);
    expect(credentialsUsed(fake)).toEqual(["sk-a", "sk-b", "sk-b"]);
  });

  it("sticky sessions keep their account under round-robin, by header or metadata.user_id", async () => {
    const { fake, sdk } = await setup({ strategy: "round-robin" });
    for (let index = 0; index < 4; index++) await sdk.messages.create(ASK, { headers: { "x-conduit-session": "conversation-1" } });
    expect(new Set(credentialsUsed(fake)).size).toBe(1);
    expect(fake.exchanges[0]?.headers["x-conduit-session"]).toBeUndefined();
    const before = fake.exchanges.length;
    for (let index = 0; index < 4; index++) await sdk.messages.create({ ...ASK, metadata: { user_id: "user-42" } });
    expect(new Set(credentialsUsed(fake).slice(before)).size).toBe(1);
  });

  it("a sticky account that cools hands the session to a healthy one", async () => {
    const { fake, sdk } = await setup();
    await sdk.messages.create(ASK, { headers: { "x-conduit-session": "s" } });
    fake.script("sk-a", { status: 429, headers: { "retry-after": "60" }, body: "{}" });
    await sdk.messages.create(ASK, { headers: { "x-conduit-session": "s" } });
    await sdk.messages.create(ASK, { headers: { "x-conduit-session": "s" } });
    expect(credentialsUsed(fake)).toEqual(["sk-a", "sk-a", "sk-b", "sk-b"]);
  });

  it("a session whose account is at its cap waits for it instead of moving", async () => {
    const { fake, sdk } = await setup({
      accounts: [
        { id: "a", type: "api-key", apiKey: "sk-a", maxInFlight: 1 },
        { id: "b", type: "api-key", apiKey: "sk-b", priority: 1 },
      ],
    });
    fake.eventGapMs = 20;
    const session = { headers: { "x-conduit-session": "held" } };
    await Promise.all([0, 1, 2].map(() => sdk.messages.stream(ASK, session).finalMessage()));
    expect(credentialsUsed(fake)).toEqual(["sk-a", "sk-a", "sk-a"]);
  });

  it("the in-flight cap sends concurrent requests to the next account", async () => {
    const { fake, sdk } = await setup({
      accounts: [
        { id: "a", type: "api-key", apiKey: "sk-a", maxInFlight: 1 },
        { id: "b", type: "api-key", apiKey: "sk-b", priority: 1, maxInFlight: 1 },
      ],
    });
    fake.eventGapMs = 100;
    await Promise.all([0, 1].map(() => sdk.messages.stream(ASK).finalMessage()));
    expect(credentialsUsed(fake).sort()).toEqual(["sk-a", "sk-b"]);
    // More than the pool holds at once: the third waits for a slot, none fails.
    await Promise.all([0, 1, 2, 3].map(() => sdk.messages.stream(ASK).finalMessage()));
    expect(fake.exchanges).toHaveLength(6);
  });
});

it("a failing pool store answers 503 api_error in Anthropic's shape (the SDKs retry it), never a crash", async () => {
  class DownStore extends MemoryPoolStore {
    override async readStates(): Promise<never> {
      throw new Error("store down");
    }
  }
  fake = await startFakeAnthropic();
  const warnings: string[] = [];
  server = await startProxyServer(
    { upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: "sk-a" }] },
    { store: new DownStore(), onWarning: (message) => warnings.push(message) },
  );
  const response = await fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": CLIENT_KEY },
    body: JSON.stringify(ASK),
  });
  expect(response.status).toBe(503);
  expect(await response.json()).toMatchObject({ type: "error", error: { type: "api_error" } });
  expect(warnings).toHaveLength(1);
});

it("an unreachable upstream: bounded retries, then 502 api_error in Anthropic's shape", async () => {
  fake = await startFakeAnthropic();
  server = await startProxyServer({
    upstream: { anthropic: "http://127.0.0.1:1" },
    maxRetries: 1,
    accounts: [{ id: "a", type: "api-key", apiKey: "sk-a" }],
  });
  const response = await fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": CLIENT_KEY },
    body: JSON.stringify(ASK),
  });
  expect(response.status).toBe(502);
  expect(await response.json()).toMatchObject({ type: "error", error: { type: "api_error" } });
  expect((await rows(server)).a?.inFlight).toBe(0);
});

describe("OAuth accounts", () => {
  const oauth = (fakeUrl: string, expiresAt: number) => ({
    upstream: { anthropic: fakeUrl },
    accounts: [
      {
        id: "o",
        type: "oauth" as const,
        accessToken: "access-initial",
        refreshToken: "refresh-initial",
        expiresAt,
        tokenUrl: `${fakeUrl}/oauth/token`,
      },
    ],
  });

  it("refreshes an expiring token once for N concurrent requests, and sends it as Bearer with the oauth beta", async () => {
    fake = await startFakeAnthropic();
    fake.refreshDelayMs = 100;
    server = await startProxyServer(oauth(fake.url, Date.now() + 1_000));
    const sdk = new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url, maxRetries: 0 });
    await Promise.all(Array.from({ length: 10 }, () => sdk.messages.create(ASK)));
    expect(fake.refreshes).toEqual([{ refreshToken: "refresh-initial" }]);
    expect(new Set(credentialsUsed(fake)).size).toBe(1);
    expect(credentialsUsed(fake)[0]).toMatch(/^access-/);
    expect(fake.exchanges[0]?.headers["anthropic-beta"]).toContain("oauth-2025-04-20");
    expect(fake.exchanges[0]?.headers["x-api-key"]).toBeUndefined();
  });

  it("a 401 triggers one refresh and a retry; a refused refresh disables the account", async () => {
    fake = await startFakeAnthropic();
    fake.refreshDelayMs = 50;
    server = await startProxyServer(oauth(fake.url, Date.now() + 3600_000));
    const sdk = new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url, maxRetries: 0 });
    // access-initial is unknown upstream: every request gets 401 first.
    await Promise.all(Array.from({ length: 5 }, () => sdk.messages.create(ASK)));
    expect(fake.refreshes).toHaveLength(1);
    expect((await rows(server)).o?.status).toBe("active");
    // Expired and unrefreshable: disabled, and the client hears "no account".
    await server.proxy.pool.store.saveTokens("o", { accessToken: "gone", refreshToken: "revoked", expiresAt: 0 });
    const raw = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY },
      body: JSON.stringify(ASK),
    });
    expect(raw.status).toBe(503);
    expect(await raw.json()).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
    expect((await rows(server)).o).toMatchObject({ status: "disabled", disabledReason: "OAuth refresh refused (HTTP 400)" });
    expect(JSON.stringify(await server.proxy.pool.rows())).not.toMatch(/access-|refresh-/);
  });
});

async function afterEachNow(): Promise<void> {
  await server?.stop();
  await fake?.close();
  server = undefined;
  fake = undefined;
}
