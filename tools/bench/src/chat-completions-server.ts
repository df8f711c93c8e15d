// Child of `bench:chat-completions`: Conduit (Hono adapter) with the proxy and its OpenAI chat
// completions surface, one API-key account on the fake Messages API.
import { createAdapter } from "@conduit-ai/adapter-hono";
import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { serveParent } from "./bench-children.js";

const proxy = createProxy(
  {
    enabled: true,
    upstream: { anthropic: process.argv[2] ?? "" },
    clientKeys: ["bench-client-key-0123456789"],
    accounts: [{ id: "bench", type: "api-key", apiKey: "sk-bench", maxInFlight: 10_000 }],
  },
  { chatCompletions: chatCompletionsFor() },
);
const adapter = createAdapter(undefined, {
  port: 0,
  host: "127.0.0.1",
  logging: { enabled: false },
  rateLimit: { enabled: false },
  enableMetrics: false,
});
registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true });
await adapter.start();
serveParent(adapter.address()?.port ?? 0, () => adapter.stop());
