import { type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { createRuntime } from "@conduit-ai/runtime";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// `GET /v1/models` lists what the gateway can serve: Claude models only with an Anthropic account
// in the pool, the configured providers' models, and the routing names that reach one of them.
const CLIENT_KEY = "conformance-models-listing-key";
const headers = { authorization: `Bearer ${CLIENT_KEY}` };
let vllm: FakeOpenAI;

beforeAll(async () => {
  vllm = await startFakeOpenAI();
});
afterAll(async () => {
  await vllm.close();
});

forEachAdapter("/v1/models lists what can be served", ({ start }) => {
  async function serve(accounts: Array<{ id: string; type: "api-key"; apiKey: string; vendor?: "anthropic" | "codex" }>) {
    const runtime = createRuntime({
      env: {},
      maxRetries: 0,
      providers: { vllm: { type: "openai-compatible", baseURL: vllm.baseURL, models: ["llama3"] } },
    });
    const proxy = createProxy(
      {
        enabled: true,
        clientKeys: [CLIENT_KEY],
        accounts,
        models: {
          chat: { targets: ["vllm/llama3"], strategy: "priority", fallbacks: ["anthropic/claude-haiku-4-5"] },
          claude: { target: "anthropic/claude-haiku-4-5", fallbacks: ["claude-sonnet-4-5"] },
          gone: "nowhere/model",
        },
      },
      { chatCompletions: chatCompletionsFor(runtime), runtime },
    );
    const server = await start({ setup: (adapter) => void registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true }) });
    const ids = async (extra: Record<string, string> = {}) => {
      const response = await fetch(server.url("/v1/models"), { headers: { ...headers, ...extra } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id);
    };
    const one = (id: string) => fetch(server.url(`/v1/models/${id}`), { headers });
    const close = async () => {
      await proxy.close();
      await runtime.close();
    };
    return { ids, one, close };
  }

  it("without an Anthropic account: no Claude model, no routing name that only reaches the pool, none to an unknown provider", async () => {
    const { ids, one, close } = await serve([{ id: "codex-only", type: "api-key", apiKey: "sk-codex", vendor: "codex" }]);
    try {
      for (const listed of [await ids(), await ids({ "anthropic-version": "2023-06-01" })]) {
        expect(listed).toEqual(expect.arrayContaining(["vllm", "vllm/llama3", "chat", "local"]));
        expect(listed.filter((id) => id.startsWith("claude"))).toEqual([]);
        expect(listed).not.toContain("gone");
      }
      const claude = await one("claude-sonnet-4-5");
      expect(claude.status).toBe(404);
      expect(((await claude.json()) as { error: { code: string } }).error.code).toBe("model_not_found");
      expect((await one("vllm%2Fllama3")).status).toBe(200);
    } finally {
      await close();
    }
  });

  it("with an Anthropic account: the Claude models and the names that reach the pool as well", async () => {
    const { ids, close } = await serve([{ id: "team", type: "api-key", apiKey: "sk-ant-listing" }]);
    try {
      const listed = await ids();
      expect(listed).toEqual(expect.arrayContaining(["claude-sonnet-4-5", "claude-haiku-4-5", "claude", "chat", "vllm/llama3"]));
      expect(listed).not.toContain("gone");
    } finally {
      await close();
    }
  });
});
