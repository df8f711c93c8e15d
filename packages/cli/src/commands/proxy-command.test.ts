import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codexStream, type FakeAnthropic, type FakeCodex, startFakeAnthropic, startFakeCodex } from "@conduit-ai/fakes";
import { Redis } from "ioredis";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { killLeftovers, portOf, spawnConduit } from "../test-support/spawn-conduit.js";

// `conduit proxy` as a real process, driven by the official openai client, in front of a fake
// Messages API and a fake codex backend on loopback.
const CLIENT_KEY = "proxy-client-key-0123456789";

let anthropic: FakeAnthropic;
let codex: FakeCodex;

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  anthropic.credentials.add("sk-ant-account-1");
  codex = await startFakeCodex();
});
afterAll(async () => {
  await anthropic.close();
  await codex.close();
});
afterEach(killLeftovers);

function configFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), "conduit-proxy-")), "proxy.json");
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const goodConfig = () => ({
  proxy: {
    enabled: true,
    upstream: { anthropic: anthropic.url, codex: codex.url },
    clientKeys: [CLIENT_KEY],
    accounts: [
      { id: "claude-1", type: "api-key", apiKey: "sk-ant-account-1" },
      { id: "codex-1", vendor: "codex", type: "api-key", apiKey: "codex-token-1", accountId: "acct-1" },
    ],
  },
});

const PROXY_READY = "Conduit proxy listening on ";
/** What a scrape of /api/metrics presents (anonymous scrapes are refused). */
const METRICS_TOKEN = "proxy-metrics-token-0123456789";
/** `conduit proxy <args>` with no vendor keys or HOST from the test's own environment. */
function runConduit(args: string[], env: Record<string, string> = {}) {
  const run = spawnConduit(args, { HOST: "", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", ...env }, PROXY_READY);
  return { ...run, ready: run.ready.then(portOf) };
}

// Each case spawns a conduit process: generous under a busy machine.
describe("conduit proxy", { timeout: 60_000 }, () => {
  it("mounts the operator console with an admin key: the Accounts page data is the pool's; without one /console is a 404", async () => {
    const adminKey = "proxy-console-admin-key-0123456789abcdef";
    const run = runConduit([
      "proxy",
      "--config",
      configFile({ ...goodConfig(), admin: { keys: [adminKey] } }),
      "--port",
      "0",
      "--host",
      "127.0.0.1",
    ]);
    const base = `http://127.0.0.1:${await run.ready}`;
    expect((await fetch(`${base}/console/`)).status).toBe(200);
    const signIn = await fetch(`${base}/console/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ credential: adminKey }),
    });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const accounts = (await (await fetch(`${base}/console/api/accounts`, { headers: { cookie } })).json()) as {
      data: { accounts: Array<{ id: string; status: string }> };
    };
    expect(accounts.data.accounts.map((account) => account.id)).toEqual(["claude-1", "codex-1"]);
    const disabled = await fetch(`${base}/console/api/accounts/claude-1/disable`, { method: "POST", headers: { cookie, origin: base } });
    expect(disabled.status).toBe(200);
    const after = (await (await fetch(`${base}/accounts`, { headers: { "x-api-key": CLIENT_KEY } })).json()) as {
      data: { accounts: Array<{ id: string; status: string }> };
    };
    expect(after.data.accounts.find((account) => account.id === "claude-1")?.status).toBe("disabled");
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);

    const plain = runConduit(["proxy", "--config", configFile(goodConfig()), "--port", "0", "--host", "127.0.0.1"]);
    const plainBase = `http://127.0.0.1:${await plain.ready}`;
    expect((await fetch(`${plainBase}/console/`)).status).toBe(404);
    plain.child.kill("SIGTERM");
    expect(await plain.exited).toBe(0);
  });

  it("serves chat completions, the Messages pool, /accounts and codex; SIGTERM exits 0", async () => {
    const run = runConduit(["proxy", "--config", configFile(goodConfig()), "--port", "0", "--host", "127.0.0.1"]);
    const port = await run.ready;
    const base = `http://127.0.0.1:${port}`;
    const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${base}/v1`, maxRetries: 0, timeout: 30_000 });

    const completion = await client.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] });
    expect(completion.choices[0]!.message.content).toBe("Hello from the fake — ünïcödé ✓ 🚀");
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);

    let streamed = "";
    for await (const chunk of await client.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
    })) {
      streamed += chunk.choices[0]?.delta.content ?? "";
    }
    expect(streamed).toBe("Hello from the fake — ünïcödé ✓ 🚀");
    expect(anthropic.exchanges.every((exchange) => exchange.credential === "sk-ant-account-1")).toBe(true);

    const local = await client.chat.completions.create({ model: "echo", messages: [{ role: "user", content: "ping" }] });
    expect(local.choices[0]!.message.content).toContain("ping");

    const codexAnswer = await fetch(`${base}/backend-api/codex/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${CLIENT_KEY}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(await codexAnswer.text()).toBe(codexStream());
    expect(codex.requests.at(-1)?.headers).toMatchObject({ authorization: "Bearer codex-token-1", "chatgpt-account-id": "acct-1" });

    const accounts = await fetch(`${base}/accounts`, { headers: { "x-api-key": CLIENT_KEY } });
    const text = await accounts.text();
    expect(text).toContain("claude-1");
    expect(text).not.toContain("sk-ant-account-1");
    expect((await fetch(`${base}/v1/chat/completions`, { method: "POST", body: "{}" })).status).toBe(401);

    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.output().stderr).toMatch(/SIGTERM received, draining…\nConduit proxy stopped\n/);
  });

  it("applies the config's guardrails on its surfaces and counts their hits", async () => {
    const guardrails = {
      rules: [{ name: "mask-emails", kind: "pii", entities: ["email"], on: "request", action: "mask" }],
      default: ["mask-emails"],
    };
    const run = runConduit([
      "proxy",
      "--config",
      configFile({ ...goodConfig(), guardrails, server: { metrics: { token: METRICS_TOKEN } } }),
      "--port",
      "0",
      "--host",
      "127.0.0.1",
    ]);
    const base = `http://127.0.0.1:${await run.ready}`;
    const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${base}/v1`, maxRetries: 0, timeout: 30_000 });
    await client.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "write to ada@example.com" }] });
    const sent = anthropic.exchanges.at(-1)?.body.toString("utf8") ?? "";
    expect(sent).toContain("write to [EMAIL]");
    expect(sent).not.toContain("ada@example.com");
    const metrics = await (await fetch(`${base}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toMatch(/conduit_guardrail_hits_total\{[^}]*guardrail="mask-emails"[^}]*\} 1/);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("keeps the pool in Redis with store: redis (REDIS_URL, REDIS_KEY_PREFIX)", async () => {
    const config = goodConfig();
    const prefix = `conduit-test:${randomUUID()}:`;
    const run = runConduit(["proxy", "--config", configFile({ proxy: { ...config.proxy, store: "redis" } }), "--port", "0"], {
      REDIS_URL: "redis://127.0.0.1:6379",
      REDIS_KEY_PREFIX: prefix,
    });
    const port = await run.ready;
    const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    const redis = new Redis("redis://127.0.0.1:6379");
    try {
      await vi.waitFor(async () => expect((await redis.keys(`${prefix}*`)).length).toBeGreaterThan(0), { timeout: 10_000 });
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  const catastrophicGuardrail = () => ({ ...goodConfig(), guardrails: { rules: [{ name: "r", kind: "regex", patterns: ["(a+)+$"] }] } });
  it.each([
    ["no --config", [], /needs --config/],
    ["a file that is not JSON", ["--config", "{not json"], /is not valid JSON/],
    ["no proxy section", ["--config", { server: {} }], /no "proxy" section/],
    [
      "an account of an unknown type",
      ["--config", { proxy: { enabled: true, clientKeys: [CLIENT_KEY], accounts: [{ id: "a", type: "magic" }] } }],
      /proxy\.accounts\.0/,
    ],
    [
      "no client keys",
      ["--config", { proxy: { enabled: true, accounts: [{ id: "a", type: "api-key", apiKey: "k" }] } }],
      /clientKeys is empty/,
    ],
    ["a bad port", ["--config", "GOOD", "--port", "70000"], /Invalid port/],
    [
      "a guardrail pattern that backtracks catastrophically",
      ["--config", "CATASTROPHIC_GUARDRAIL"],
      /guardrails\.rules\.0\.patterns\.0: refused: this pattern can backtrack catastrophically/,
    ],
  ])("exits 2 with one line naming the problem for %s", async (_name, args, pattern) => {
    const argv = args.map((arg, index) =>
      args[index - 1] === "--config"
        ? configFile(arg === "GOOD" ? goodConfig() : arg === "CATASTROPHIC_GUARDRAIL" ? catastrophicGuardrail() : arg)
        : String(arg),
    );
    const { code, stderr } = await runConduitInProcess(["proxy", ...argv], { HOST: "", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" });
    expect(code).toBe(2);
    expect(stderr).toMatch(pattern);
    // A config problem is one line; a missing flag adds the usage text after it.
    if (args.length > 0) expect(stderr.trim().split("\n")).toHaveLength(1);
    else expect(stderr.trim().split("\n")[0]).toMatch(pattern);
    expect(stderr).not.toContain("sk-ant");
  });
});
