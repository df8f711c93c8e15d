import { type FakeAnthropic, FakePromptCache, startFakeAnthropic } from "@conduit-ai/fakes";
import { type ConduitProxy, chatCompletionsFor, createProxy } from "@conduit-ai/proxy";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

// Prompt-cache hints across a translated surface: a caller of /v1/chat/completions or
// /v1/responses sending `x-conduit-cache-control: auto` to a Claude model gets Anthropic
// `cache_control` breakpoints on the system prompt and the last tool of the Messages request
// (what the fake received), so the second turn of a session reads the cache the first wrote.
// Without the header the request carries none, and nothing is read.

const CLIENT_KEY = "cache-hints-client-key-0123456789";
const ACCOUNT_KEY = "sk-ant-cache-hints";
const EPHEMERAL = { type: "ephemeral" };
const SYSTEM = `You are a careful assistant. ${"Follow the house style in every answer. ".repeat(40)}`;
const TOOL_NAMES = ["read_file", "list_dir", "run_tests"];

// biome-ignore lint/suspicious/noExplicitAny: requests and answers are read field by field
type Json = Record<string, any>;

const chatTools = TOOL_NAMES.map((name) => ({
  type: "function",
  function: { name, description: `The ${name} tool.`, parameters: { type: "object", properties: { path: { type: "string" } } } },
}));
const responsesTools = TOOL_NAMES.map((name) => ({
  type: "function",
  name,
  description: `The ${name} tool.`,
  parameters: { type: "object", properties: { path: { type: "string" } } },
}));

/** Two turns of one session on each surface: turn 2 repeats turn 1 and adds to it. */
const sessions = {
  "/v1/chat/completions": (turn: number) => ({
    model: "claude-sonnet-4-5",
    tools: chatTools,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: "What is in README.md?" },
      ...(turn === 2
        ? [
            { role: "assistant", content: "It describes the project." },
            { role: "user", content: "And in LICENSE?" },
          ]
        : []),
    ],
  }),
  "/v1/responses": (turn: number) => ({
    model: "claude-sonnet-4-5",
    instructions: SYSTEM,
    tools: responsesTools,
    stream: true,
    input: [
      { role: "user", content: "What is in README.md?" },
      ...(turn === 2
        ? [
            { role: "assistant", content: "It describes the project." },
            { role: "user", content: "And in LICENSE?" },
          ]
        : []),
    ],
  }),
} as const;

/** The usage the fake reported for one exchange: the JSON answer's, or the stream's `message_start`. */
function vendorUsage(sent: Buffer): Json {
  const text = sent.toString("utf8");
  if (!text.startsWith("event:")) return (JSON.parse(text) as Json).usage;
  const start = text.split("\n").find((line) => line.includes('"message_start"'));
  return (JSON.parse(start?.slice(5) ?? "{}") as Json).message.usage;
}

forEachAdapter("prompt-cache hints on the translated surfaces", ({ start }) => {
  let anthropic: FakeAnthropic;
  let proxy: ConduitProxy | undefined;
  beforeEach(async () => {
    anthropic = await startFakeAnthropic();
    anthropic.credentials.add(ACCOUNT_KEY);
    anthropic.promptCache = new FakePromptCache();
  });
  afterEach(async () => {
    await proxy?.close();
    await anthropic.close();
    proxy = undefined;
  });

  async function serve(): Promise<RunningServer> {
    proxy = createProxy(
      {
        enabled: true,
        upstream: { anthropic: anthropic.url },
        clientKeys: [CLIENT_KEY],
        accounts: [{ id: "claude", type: "api-key", apiKey: ACCOUNT_KEY }],
      },
      { chatCompletions: chatCompletionsFor() },
    );
    const running = proxy;
    return start({ setup: (adapter) => void registerAllRoutes(adapter, undefined, { proxy: running }) });
  }

  const call = (server: RunningServer, path: string, body: unknown, hint?: string) =>
    fetch(server.url(path), {
      method: "POST",
      headers: {
        authorization: `Bearer ${CLIENT_KEY}`,
        "content-type": "application/json",
        ...(hint ? { "x-conduit-cache-control": hint } : {}),
      },
      body: JSON.stringify(body),
    });

  for (const [path, turnOf] of Object.entries(sessions)) {
    it(`${path} with x-conduit-cache-control: auto marks the system prompt and the tools; turn 2 reads the cache`, async () => {
      const server = await serve();
      for (const turn of [1, 2]) {
        const answer = await call(server, path, turnOf(turn), "auto");
        expect(answer.status).toBe(200);
        await answer.text();
      }
      const [first, second] = anthropic.exchanges.map((exchange) => JSON.parse(exchange.body.toString("utf8")) as Json);
      for (const sent of [first, second]) {
        expect(sent?.system).toEqual([{ type: "text", text: SYSTEM, cache_control: EPHEMERAL }]);
        expect(sent?.tools.map((tool: Json) => [tool.name, tool.cache_control])).toEqual([
          ["read_file", undefined],
          ["list_dir", undefined],
          ["run_tests", EPHEMERAL],
        ]);
        // Only the system prompt and the tools: the messages are as translated.
        expect(JSON.stringify(sent?.messages)).not.toContain("cache_control");
      }
      const [written, read] = anthropic.exchanges.map((exchange) => vendorUsage(exchange.sent));
      expect(written?.cache_read_input_tokens).toBe(0);
      expect(written?.cache_creation_input_tokens).toBeGreaterThan(400);
      expect(read?.cache_read_input_tokens).toBe(written?.cache_creation_input_tokens);
      expect(read?.cache_creation_input_tokens).toBe(0);
    });

    it(`${path} without the header sends no breakpoint and reads no cache; another value is a 400 naming the header`, async () => {
      const server = await serve();
      for (const turn of [1, 2]) await (await call(server, path, turnOf(turn), turn === 1 ? undefined : "off")).text();
      const bodies = anthropic.exchanges.map((exchange) => exchange.body.toString("utf8"));
      expect(bodies).toHaveLength(2);
      for (const body of bodies) expect(body).not.toContain("cache_control");
      expect(anthropic.exchanges.map((exchange) => vendorUsage(exchange.sent).cache_read_input_tokens)).toEqual([0, 0]);
      const refused = await call(server, path, turnOf(1), "always");
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as Json).error).toMatchObject({ type: "invalid_request_error", param: "x-conduit-cache-control" });
      expect(anthropic.exchanges).toHaveLength(2);
    });
  }
});
