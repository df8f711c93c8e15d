import { createAdapter } from "@conduit-ai/adapter-hono";
import { createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { CLIENT_KEY, type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/proxy/testing";
import { createAdminKeyCheck, mountConsole } from "../src/index.js";
import { registerAdminStandIn } from "./admin-api-stand-in.js";

export const ADMIN_KEY = "browser-test-admin-key-0123456789abcdefghijklmnop";

/** A real server on loopback: the proxy over a local Anthropic stand-in, the admin API, and the console. */
export async function startConsoleServer() {
  const fake: FakeAnthropic = await startFakeAnthropic();
  fake.credentials.add("sk-primary");
  fake.credentials.add("sk-backup");
  const proxy = createProxy({
    enabled: true,
    clientKeys: [CLIENT_KEY],
    upstream: { anthropic: fake.url },
    accounts: [
      { id: "primary", type: "api-key", apiKey: "sk-primary" },
      { id: "backup", type: "api-key", apiKey: "sk-backup", priority: 1 },
    ],
  });
  const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false } });
  registerProxyRoutes(adapter, proxy, { messages: true });
  const admin = registerAdminStandIn(adapter, ADMIN_KEY);
  mountConsole(adapter, {
    verifyAdmin: createAdminKeyCheck([ADMIN_KEY]),
    adminKeys: [ADMIN_KEY],
    accounts: {
      rows: () => proxy.pool.rows(),
      disable: (id) => proxy.pool.disable(id, "disabled by an operator (console)"),
      enable: (id) => proxy.pool.enable(id),
    },
  });
  await adapter.start();
  const url = `http://127.0.0.1:${adapter.address()?.port}`;
  return {
    url,
    proxy,
    admin,
    fake,
    stop: async () => {
      await adapter.stop();
      await proxy.close();
      await fake.close();
    },
  };
}
