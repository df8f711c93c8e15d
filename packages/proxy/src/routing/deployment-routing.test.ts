import { type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { createRuntime } from "@conduit-ai/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chatCompletionsFor } from "../surfaces/openai-surfaces.js";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../testing/proxy-server.js";

let east: FakeOpenAI;
let west: FakeOpenAI;
let server: ProxyServer;
let runtime: ReturnType<typeof createRuntime>;

const models = {
  pool: { targets: [{ target: "east/llama3" }, { target: "west/llama3" }], strategy: "priority" as const },
  spread: {
    targets: [
      { target: "east/llama3", weight: 3 },
      { target: "west/llama3", weight: 1 },
    ],
    strategy: "weighted" as const,
  },
};

beforeAll(async () => {
  [east, west] = await Promise.all([startFakeOpenAI(), startFakeOpenAI()]);
  runtime = createRuntime({
    env: {},
    maxRetries: 0,
    providers: {
      east: { type: "openai-compatible", baseURL: east.baseURL, models: ["llama3"] },
      west: { type: "openai-compatible", baseURL: west.baseURL, models: ["llama3"] },
    },
  });
  server = await startProxyServer({ models }, { chatCompletions: chatCompletionsFor(runtime), runtime });
});
afterAll(async () => {
  await server.stop();
  await runtime.close();
  await Promise.all([east.close(), west.close()]);
});
beforeEach(() => {
  east.scenario = "text";
  west.scenario = "text";
});

async function chat(model: string, stream = false): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${CLIENT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model, stream, messages: [{ role: "user", content: "Hi" }] }),
  });
}

describe("deployment routes on /v1/chat/completions", () => {
  it("moves to the next deployment on 429 or 5xx and names what served it", async () => {
    east.scenario = "rate-limited";
    let response = await chat("pool");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-conduit-model")).toBe("west/llama3");
    east.scenario = "server-error";
    response = await chat("pool", true);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-conduit-model")).toBe("west/llama3");
    expect(await response.text()).toContain("[DONE]");
  });

  it("names the last target tried when every deployment fails", async () => {
    east.scenario = "rate-limited";
    west.scenario = "server-error";
    const response = await chat("pool");
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.headers.get("x-conduit-model")).toBe("west/llama3");
    expect(((await response.json()) as { error: { message: string } }).error.message).toBeTruthy();
  });

  it("spreads a weighted route's calls by weight", async () => {
    const served: string[] = [];
    for (let call = 0; call < 80; call++) {
      const response = await chat("spread");
      await response.text();
      served.push(String(response.headers.get("x-conduit-model")));
    }
    const onEast = served.filter((name) => name === "east/llama3").length;
    // 3:1 → 60 of 80 expected; a wide band, the exact share is the strategy test's.
    expect(onEast).toBeGreaterThan(44);
    expect(onEast).toBeLessThan(76);
  });
});
