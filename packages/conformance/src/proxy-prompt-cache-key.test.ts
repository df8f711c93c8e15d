import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { type ConduitProxy, chatCompletionsFor, createProxy } from "@conduit-ai/proxy";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

// OpenAI's `prompt_cache_key` (Chat Completions and Responses bodies) names a sticky session in
// the Anthropic pool, as Claude Code's session does on /v1/messages: the same key stays on one
// account while it is healthy, so that account's prompt cache stays warm. When that account
// fails (429 with a reset, or 5xx) the call fails over and its session moves; the sessions on
// the other accounts stay where they were.

const CLIENT_KEY = "prompt-cache-key-client-0123456789";
const ACCOUNTS = ["sk-ant-sticky-a", "sk-ant-sticky-b", "sk-ant-sticky-c"];
const SESSIONS = ["session-one", "session-two", "session-three"];

/** A one-line question of `session` on a surface: sessions alternate between Chat Completions and Responses. */
function question(session: string): { path: string; body: unknown } {
  return SESSIONS.indexOf(session) % 2 === 0
    ? {
        path: "/v1/chat/completions",
        body: { model: "claude-sonnet-4-5", prompt_cache_key: session, messages: [{ role: "user", content: "Hi" }] },
      }
    : { path: "/v1/responses", body: { model: "claude-sonnet-4-5", prompt_cache_key: session, input: "Hi" } };
}

forEachAdapter("prompt_cache_key keeps a session on one pool account", ({ start }) => {
  let anthropic: FakeAnthropic;
  let proxy: ConduitProxy | undefined;
  let server: RunningServer;
  beforeEach(async () => {
    anthropic = await startFakeAnthropic();
    for (const key of ACCOUNTS) anthropic.credentials.add(key);
    proxy = createProxy(
      {
        enabled: true,
        strategy: "round-robin",
        maxRetries: 0,
        retryBaseMs: 1,
        upstream: { anthropic: anthropic.url },
        clientKeys: [CLIENT_KEY],
        accounts: ACCOUNTS.map((apiKey, index) => ({ id: `account-${index}`, type: "api-key" as const, apiKey })),
      },
      { chatCompletions: chatCompletionsFor() },
    );
    const running = proxy;
    server = await start({ setup: (adapter) => void registerAllRoutes(adapter, undefined, { proxy: running }) });
  });
  afterEach(async () => {
    await proxy?.close();
    await anthropic.close();
    proxy = undefined;
  });

  /** Asks once for `session`; the account that answered it with 200 (the last exchange's credential). */
  async function ask(session: string): Promise<string> {
    const { path, body } = question(session);
    const answer = await fetch(server.url(path), {
      method: "POST",
      headers: { authorization: `Bearer ${CLIENT_KEY}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(200);
    await answer.text();
    const last = anthropic.exchanges.at(-1);
    expect(last?.status).toBe(200);
    // The key is Conduit's routing, not the vendor's field: the Messages request never carries it.
    expect(last?.body.toString("utf8")).not.toContain("prompt_cache_key");
    return last?.credential ?? "";
  }

  /** Each session's account after its first call, checked to hold over two more rounds. */
  async function pinned(): Promise<Map<string, string>> {
    const accounts = new Map<string, string>();
    for (const session of SESSIONS) accounts.set(session, await ask(session));
    for (let round = 0; round < 2; round += 1) for (const session of SESSIONS) expect(await ask(session)).toBe(accounts.get(session));
    // Round-robin spreads new sessions: one account each.
    expect(new Set(accounts.values()).size).toBe(3);
    return accounts;
  }

  const failures = {
    "a 429 with a reset": { status: 429, headers: { "retry-after": "60" }, body: { type: "error", error: { type: "rate_limit_error" } } },
    "a 500": { status: 500, body: { type: "error", error: { type: "api_error", message: "boom" } } },
  };
  for (const [name, failure] of Object.entries(failures)) {
    it(`the same key stays on its account; ${name} moves only the session of the failed account`, async () => {
      const before = await pinned();
      const [failing, ...others] = SESSIONS as [string, ...string[]];
      const failedAccount = before.get(failing) as string;
      anthropic.script(failedAccount, failure);
      const moved = await ask(failing);
      expect(moved).not.toBe(failedAccount);
      // The failed call reached the failed account first, then failed over.
      expect(anthropic.exchanges.at(-2)).toMatchObject({ credential: failedAccount, status: failure.status });
      for (let round = 0; round < 2; round += 1) {
        expect(await ask(failing)).toBe(moved);
        for (const session of others) expect(await ask(session)).toBe(before.get(session));
      }
    });
  }
});
