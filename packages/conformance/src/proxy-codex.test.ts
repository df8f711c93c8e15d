import { type ConduitProxy, createClientCheck, createCodexRoute, createCodexSender, createProxy } from "@conduit-ai/proxy";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { codexStream, type FakeCodex, startFakeCodex } from "@conduit-ai/fakes";
import { forEachAdapter } from "./harness.js";

// POST /backend-api/codex/responses (docs/spec.md "Proxy surfaces": the command-line proxy's codex engine)
// over a pool of two codex accounts, in front of a fake codex backend.
const CLIENT_KEY = "conformance-client-key-0123";
let backend: FakeCodex;
const proxies: ConduitProxy[] = [];
beforeAll(async () => {
  backend = await startFakeCodex();
});
afterAll(() => backend.close());
afterEach(async () => {
  backend.limited.clear();
  for (const proxy of proxies.splice(0)) await proxy.close();
});

function codexRoute() {
  const proxy = createProxy({
    enabled: true,
    upstream: { codex: backend.url },
    clientKeys: [CLIENT_KEY],
    accounts: [
      { id: "one", vendor: "codex", type: "api-key", apiKey: "token-one", accountId: "acct-one" },
      { id: "two", vendor: "codex", type: "api-key", apiKey: "token-two", accountId: "acct-two", priority: 1 },
    ],
  });
  proxies.push(proxy);
  return {
    proxy,
    route: createCodexRoute({
      sendCodex: createCodexSender({ pool: proxy.pool, config: proxy.config }),
      isClientAllowed: createClientCheck(proxy.config.clientKeys),
    }),
  };
}

const send = (url: string, key = CLIENT_KEY) =>
  fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: '{"model":"gpt-5-codex"}',
  });

forEachAdapter("proxy codex engine", ({ start }) => {
  it("streams the backend's bytes unchanged with the account's token and account id", async () => {
    const { route } = codexRoute();
    const server = await start({ setup: (adapter) => adapter.registerRoute(route) });
    const response = await send(server.url("/backend-api/codex/responses"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(codexStream()))).toBe(true);
    expect(backend.requests.at(-1)?.headers).toMatchObject({ authorization: "Bearer token-one", "chatgpt-account-id": "acct-one" });
  });

  it("moves to the next account on usage_limit_reached and cools the first", async () => {
    const { route, proxy } = codexRoute();
    backend.limited.add("acct-one");
    const server = await start({ setup: (adapter) => adapter.registerRoute(route) });
    const response = await send(server.url("/backend-api/codex/responses"));
    expect(await response.text()).toBe(codexStream());
    expect(backend.requests.at(-1)?.headers["chatgpt-account-id"]).toBe("acct-two");
    expect((await proxy.pool.rows()).find((row) => row.id === "one")?.status).toBe("cooling");
  });

  it("refuses a caller without a client key", async () => {
    const { route } = codexRoute();
    const server = await start({ setup: (adapter) => adapter.registerRoute(route) });
    const before = backend.requests.length;
    expect((await send(server.url("/backend-api/codex/responses"), "wrong")).status).toBe(401);
    expect(backend.requests.length).toBe(before);
  });
});
