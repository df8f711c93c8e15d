import { type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { createRuntime } from "@conduit-ai/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../testing/proxy-server.js";
import { chatCompletionsFor } from "./openai-surfaces.js";

let east: FakeOpenAI;
let server: ProxyServer;
let runtime: ReturnType<typeof createRuntime>;

beforeAll(async () => {
  east = await startFakeOpenAI();
  runtime = createRuntime({
    env: {},
    maxRetries: 0,
    providers: { east: { type: "openai-compatible", baseURL: east.baseURL, models: ["llama3"] } },
  });
  server = await startProxyServer(
    { models: { fast: { targets: [{ target: "east/llama3" }], strategy: "least-busy" } } },
    { chatCompletions: chatCompletionsFor(runtime), runtime },
  );
});
afterAll(async () => {
  await server.stop();
  await runtime.close();
  await east.close();
});

const headers = { authorization: `Bearer ${CLIENT_KEY}`, "x-api-key": CLIENT_KEY, "content-type": "application/json" };
const anthropic = { ...headers, "anthropic-version": "2023-06-01" };
const post = (path: string, body: unknown, extra: Record<string, string> = headers) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: extra, body: JSON.stringify(body) });
const ask = [{ role: "user", content: "Hi" }];

describe("<provider>/<model> on every proxy surface", () => {
  it("serves a runtime provider's model on chat completions, Responses and Messages, named in x-conduit-model", async () => {
    for (const [path, body, extra] of [
      ["/v1/chat/completions", { model: "east/llama3", messages: ask }, headers],
      ["/v1/responses", { model: "east/llama3", input: "Hi" }, headers],
      ["/v1/messages", { model: "east/llama3", max_tokens: 16, messages: ask }, anthropic],
      ["/v1/messages", { model: "fast", max_tokens: 16, messages: ask }, anthropic],
    ] as const) {
      const response = await post(path, body, extra);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("x-conduit-model"), path).toBe("east/llama3");
      expect(await response.text()).toContain("Upstream heard 1 messages");
    }
  });

  it("answers an unknown provider or model with 404 model_not_found naming what exists, in the surface's shape", async () => {
    const chat = await post("/v1/chat/completions", { model: "nope/x", messages: ask });
    expect(chat.status).toBe(404);
    const chatError = ((await chat.json()) as { error: { code: string; message: string } }).error;
    expect(chatError.code).toBe("model_not_found");
    expect(chatError.message).toContain("Models here: ");
    expect(chatError.message).toContain("east/llama3");
    const responses = await post("/v1/responses", { model: "east/unknown", input: "Hi" });
    expect(responses.status).toBe(404);
    expect(((await responses.json()) as { error: { message: string } }).error.message).toContain("east/llama3");
    const embeddings = await post("/v1/embeddings", { model: "nope/x", input: "Hi" });
    expect(embeddings.status).toBe(404);
    expect(((await embeddings.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "model_not_found",
      message: expect.stringContaining("Models here: local, east"),
    });
    const messages = await post("/v1/messages", { model: "nope/x", max_tokens: 16, messages: ask }, anthropic);
    expect(messages.status).toBe(404);
    const body = (await messages.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("not_found_error");
    expect(body.error.message).toContain("east/llama3");
  });

  it("lists every provider's models as <provider>/<model> and the routing names, in OpenAI's or Anthropic's shape", async () => {
    const openai = (await (await fetch(`${server.url}/v1/models`, { headers })).json()) as { object: string; data: Array<{ id: string }> };
    expect(openai.object).toBe("list");
    expect(openai.data.map((model) => model.id)).toEqual(expect.arrayContaining(["east/llama3", "fast", "local/echo"]));
    const claude = (await (await fetch(`${server.url}/v1/models`, { headers: anthropic })).json()) as {
      data: Array<{ type: string; id: string }>;
      has_more: boolean;
    };
    expect(claude.has_more).toBe(false);
    expect(claude.data.find((model) => model.id === "east/llama3")?.type).toBe("model");
  });

  it("drops hosted tools a runtime target cannot run, keeps function tools, and says so in x-conduit-dropped-tools", async () => {
    const tools = [
      { type: "web_search" },
      {
        type: "function",
        name: "shell",
        description: "Runs a command",
        parameters: { type: "object", properties: { command: { type: "string" } } },
      },
      { type: "file_search", vector_store_ids: ["vs_1"] },
    ];
    for (const stream of [false, true]) {
      const before = east.requests.length;
      const response = await post("/v1/responses", { model: "east/llama3", input: "Hi", tools, stream });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-conduit-dropped-tools")).toBe("web_search, file_search");
      await response.text();
      const upstream = east.requests.slice(before).at(-1)?.body as { tools?: Array<{ function: { name: string } }> };
      expect(upstream.tools?.map((tool) => tool.function.name)).toEqual(["shell"]);
    }
    const plain = await post("/v1/responses", { model: "east/llama3", input: "Hi", tools: tools.slice(1, 2) });
    expect(plain.headers.get("x-conduit-dropped-tools")).toBeNull();
  });
});
