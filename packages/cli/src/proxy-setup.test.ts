import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY } from "@conduit-ai/proxy/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type AssembledServer, assembleServer } from "./server-assembly.js";

describe("config file `proxy` key", () => {
  let assembled: AssembledServer | undefined;
  let fake: FakeAnthropic | undefined;
  afterEach(async () => {
    if (assembled?.server.getLifecycleState() === "running") await assembled.server.stop();
    await assembled?.close();
    await fake?.close();
    assembled = undefined;
  });

  const server = { port: 0, host: "127.0.0.1", logging: { enabled: false } };

  it("mounts /v1/messages over the configured accounts when enabled", async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-file");
    const proxy = {
      enabled: true,
      upstream: { anthropic: fake.url },
      accounts: [{ id: "a", type: "api-key", apiKey: "sk-file" }],
      clientKeys: [CLIENT_KEY],
    };
    assembled = await assembleServer({ framework: "hono", server, file: { proxy } }, {});
    await assembled.server.start();
    const port = assembled.server.getStatus().port as number;
    const response = await fetch(`http://127.0.0.1:${port}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "x" }] }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(fake.exchanges.at(-1)?.sent.toString());

    // /v1/chat/completions is mounted too: Claude models go through the pool, others to the runtime.
    const chat = (model: string) =>
      fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${CLIENT_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hello" }] }),
      });
    const claude = await chat("claude-sonnet-4-5");
    expect(claude.status).toBe(200);
    expect((await claude.json()).object).toBe("chat.completion");
    const local = await chat("local/echo");
    expect(local.status).toBe(200);
    expect((await local.json()).choices[0].message.content).toContain("hello");
  });

  it("leaves the proxy out when not enabled, and refuses a Redis store without REDIS_URL or a bad section", async () => {
    assembled = await assembleServer({ framework: "hono", server, file: { proxy: { enabled: false } } }, {});
    await assembled.server.start();
    const port = assembled.server.getStatus().port as number;
    expect((await fetch(`http://127.0.0.1:${port}/v1/messages`, { method: "POST", body: "{}" })).status).toBe(404);
    await expect(assembleServer({ framework: "hono", server, file: { proxy: { enabled: true, store: "redis" } } }, {})).rejects.toThrow(
      /REDIS_URL/,
    );
    await expect(
      assembleServer({ framework: "hono", server, file: { proxy: { enabled: true, cache: { store: "redis" } } } }, {}),
    ).rejects.toThrow(/proxy\.cache\.store is "redis" but no Redis/);
    await expect(
      assembleServer(
        {
          framework: "hono",
          server,
          file: { proxy: { enabled: true, accounts: [{ id: "a", type: "api-key", apiKey: "secret-value", priority: "high" }] } },
        },
        {},
      ),
    ).rejects.toThrow(/proxy\.accounts\.0\.priority/);
  });
});
