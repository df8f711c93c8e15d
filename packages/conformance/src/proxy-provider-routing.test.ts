import { type FakeOpenAI, type VendorFake, startFakeMistral, startFakeOpenAI } from "@conduit-ai/fakes";
import { chatCompletionsFor, createProviderKeyPools, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { createRuntime } from "@conduit-ai/runtime";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// A gateway over runtime providers only: routing names with deployments and a strategy, key
// pools, `<provider>/<model>` on every proxy surface, /v1/models, and Codex's hosted tools.
const CLIENT_KEY = "conformance-routing-key-0123";
let east: FakeOpenAI;
let west: FakeOpenAI;
let mistral: VendorFake;

beforeAll(async () => {
  [east, west, mistral] = await Promise.all([startFakeOpenAI(), startFakeOpenAI(), startFakeMistral()]);
  mistral.keys.add("mistral-good-key");
});
beforeEach(() => {
  east.scenario = "text";
  west.scenario = "text";
});
afterAll(async () => {
  await Promise.all([east.close(), west.close(), mistral.close()]);
});

forEachAdapter("a gateway over runtime providers", ({ start }) => {
  async function serve() {
    const warnings: string[] = [];
    const keyPools = createProviderKeyPools({ warn: (line) => warnings.push(line) });
    const runtime = createRuntime({
      env: {},
      maxRetries: 0,
      keySources: keyPools.keySource,
      providers: {
        east: { type: "openai-compatible", baseURL: east.baseURL, models: ["llama3"] },
        west: { type: "openai-compatible", baseURL: west.baseURL, models: ["llama3"] },
        team: { type: "mistral", apiKeys: ["mistral-revoked-key", "mistral-good-key"], baseURL: `${mistral.url}/v1` },
      },
    });
    const proxy = createProxy(
      {
        enabled: true,
        clientKeys: [CLIENT_KEY],
        models: {
          pool: { targets: [{ target: "east/llama3" }, { target: "west/llama3" }], strategy: "priority" },
          busy: { targets: ["east/llama3", "west/llama3"], strategy: "least-busy", fallbacks: ["team/mistral-small-latest"] },
        },
      },
      { chatCompletions: chatCompletionsFor(runtime), runtime, keyPools },
    );
    const server = await start({ setup: (adapter) => void registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true }) });
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(server.url(path), {
        method: "POST",
        headers: { authorization: `Bearer ${CLIENT_KEY}`, "x-api-key": CLIENT_KEY, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    return {
      server,
      post,
      warnings,
      close: async () => {
        await proxy.close();
        await runtime.close();
      },
    };
  }
  const ask = [{ role: "user", content: "Hi" }];

  it("moves a routing name's call to the next deployment on 429 and names what served it, on errors too", async () => {
    const { post, close } = await serve();
    try {
      east.scenario = "rate-limited";
      const served = await post("/v1/chat/completions", { model: "pool", messages: ask });
      expect(served.status).toBe(200);
      expect(served.headers.get("x-conduit-model")).toBe("west/llama3");
      west.scenario = "server-error";
      const failed = await post("/v1/chat/completions", { model: "pool", messages: ask });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(failed.headers.get("x-conduit-model")).toBe("west/llama3");
      expect(((await failed.json()) as { error: { type: string } }).error.type).toBe("server_error");
    } finally {
      await close();
    }
  });

  it("serves <provider>/<model> on chat completions, Responses and Messages; an unknown one is 404 naming what exists", async () => {
    const { post, close } = await serve();
    try {
      const anthropic = { "anthropic-version": "2023-06-01" };
      for (const [path, body, headers] of [
        ["/v1/chat/completions", { model: "east/llama3", messages: ask }, {}],
        ["/v1/responses", { model: "east/llama3", input: "Hi" }, {}],
        ["/v1/messages", { model: "east/llama3", max_tokens: 16, messages: ask }, anthropic],
      ] as const) {
        const response = await post(path, body, headers);
        expect(response.status, path).toBe(200);
        expect(response.headers.get("x-conduit-model"), path).toBe("east/llama3");
      }
      const openai = await post("/v1/chat/completions", { model: "nope/x", messages: ask });
      expect(openai.status).toBe(404);
      const openaiError = ((await openai.json()) as { error: { code: string; message: string } }).error;
      expect(openaiError.code).toBe("model_not_found");
      expect(openaiError.message).toContain("east/llama3");
      const claude = await post("/v1/messages", { model: "nope/x", max_tokens: 16, messages: ask }, anthropic);
      expect(claude.status).toBe(404);
      expect(((await claude.json()) as { error: { type: string; message: string } }).error).toMatchObject({ type: "not_found_error" });
    } finally {
      await close();
    }
  });

  it("lists every provider's models and the routing names on /v1/models, OpenAI's shape or Anthropic's", async () => {
    const { server, close } = await serve();
    try {
      const headers = { authorization: `Bearer ${CLIENT_KEY}`, "x-api-key": CLIENT_KEY };
      const openai = (await (await fetch(server.url("/v1/models"), { headers })).json()) as { object: string; data: Array<{ id: string }> };
      expect(openai.object).toBe("list");
      expect(openai.data.map((model) => model.id)).toEqual(expect.arrayContaining(["east/llama3", "west/llama3", "pool", "busy"]));
      const claude = (await (
        await fetch(server.url("/v1/models"), { headers: { ...headers, "anthropic-version": "2023-06-01" } })
      ).json()) as {
        data: Array<{ type: string; id: string }>;
      };
      expect(claude.data.map((model) => model.id)).toEqual(expect.arrayContaining(["east/llama3", "pool"]));
    } finally {
      await close();
    }
  });

  it("drops Codex's hosted web_search for a runtime target and says so in x-conduit-dropped-tools", async () => {
    const { post, close } = await serve();
    try {
      const tools = [{ type: "web_search" }, { type: "function", name: "shell", parameters: { type: "object", properties: {} } }];
      const response = await post("/v1/responses", { model: "busy", input: "Hi", tools, stream: true });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-conduit-dropped-tools")).toBe("web_search");
      expect(await response.text()).toContain("response.completed");
    } finally {
      await close();
    }
  });

  it("a key pool disables a refused key with one warning and serves every call from the other", async () => {
    const { post, warnings, close } = await serve();
    try {
      const before = mistral.requests.length;
      for (let call = 0; call < 4; call++) {
        const response = await post("/v1/chat/completions", { model: "team/mistral-small-latest", messages: ask });
        expect(response.status).toBe(200);
        expect(response.headers.get("x-conduit-model")).toBe("team/mistral-small-latest");
      }
      const keys = mistral.requests.slice(before).map((request) => request.headers.authorization);
      expect(keys).toEqual(["Bearer mistral-revoked-key", ...Array(4).fill("Bearer mistral-good-key")]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("providers.team.apiKeys[0]");
      expect(warnings[0]).not.toContain("mistral-revoked-key");
    } finally {
      await close();
    }
  });
});
