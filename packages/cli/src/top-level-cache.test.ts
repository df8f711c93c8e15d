import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY } from "@conduit-ai/proxy/testing";
import { afterEach, describe, expect, it } from "vitest";
import { readConfigFile } from "./config-file.js";
import { type AssembledServer, assembleServer } from "./server-assembly.js";
import { writeConfig } from "./test-support/spawn-conduit.js";
import { UsageError } from "./usage-error.js";

const cache = { store: "memory", ttlSeconds: 60, maxEntryBytes: 65_536 };

describe("the top-level cache key", () => {
  let assembled: AssembledServer | undefined;
  let fake: FakeAnthropic | undefined;
  afterEach(async () => {
    if (assembled?.server.getLifecycleState() === "running") await assembled.server.stop();
    await assembled?.close();
    await fake?.close();
    assembled = undefined;
    fake = undefined;
  });

  it.each(["serve", "proxy"] as const)("%s: is proxy.cache by another name", (command) => {
    const file = readConfigFile(writeConfig({ proxy: { enabled: true }, cache }), command);
    expect(file.cache).toBeUndefined();
    expect((file.proxy as { cache: unknown }).cache).toEqual(cache);
  });

  it("refuses both at once (exit 2), naming both", () => {
    const both = writeConfig({ proxy: { enabled: true, cache }, cache });
    expect(() => readConfigFile(both, "serve")).toThrow(UsageError);
    expect(() => readConfigFile(both, "proxy")).toThrow(/cache is given twice \(top-level cache and proxy\.cache/);
  });

  it("caches the server's model calls: a repeated call is a hit on /v1/messages and /v1/responses", async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-file");
    const path = writeConfig({
      proxy: {
        enabled: true,
        upstream: { anthropic: fake.url },
        accounts: [{ id: "a", type: "api-key", apiKey: "sk-file" }],
        clientKeys: [CLIENT_KEY],
      },
      cache,
    });
    const server = { port: 0, host: "127.0.0.1", logging: { enabled: false } };
    assembled = await assembleServer({ framework: "hono", server, file: readConfigFile(path, "serve") }, {});
    await assembled.server.start();
    const port = assembled.server.getStatus().port as number;
    const calls = [
      ["/v1/messages", { model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "x" }] }],
      ["/v1/responses", { model: "claude-sonnet-4-5", input: "x" }],
    ] as const;
    for (const [route, body] of calls) {
      const seen: Array<string | null> = [];
      for (let round = 0; round < 2; round += 1) {
        const response = await fetch(`http://127.0.0.1:${port}${route}`, {
          method: "POST",
          headers: { "x-api-key": CLIENT_KEY, authorization: `Bearer ${CLIENT_KEY}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(200);
        await response.text();
        seen.push(response.headers.get("x-conduit-cache"));
      }
      expect(seen, route).toEqual(["miss", "hit"]);
    }
    expect(fake.exchanges).toHaveLength(2);
  });
});
