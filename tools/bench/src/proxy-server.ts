// Child of `bench:proxy`: Conduit (Hono adapter) on its default stack (logging, metrics, security
// headers, request ids, timeouts) with the proxy's surfaces — /v1/messages passthrough, and
// /v1/chat/completions and /v1/responses translated to the Messages API — over one API-key account
// on the fake upstream. The per-client limiter stays on, with a ceiling the bench never reaches.
import { createAdapter } from "@conduit-ai/adapter-hono";
import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { serveParent } from "./bench-children.js";

const upstream = process.argv[2] ?? "";
const proxy = createProxy(
  {
    enabled: true,
    upstream: { anthropic: upstream },
    clientKeys: ["bench-client-key-0123456789"],
    accounts: [{ id: "bench", type: "api-key", apiKey: "sk-bench", maxInFlight: 10_000 }],
    rateLimit: { maxRequests: 1_000_000_000 },
  },
  { chatCompletions: chatCompletionsFor() },
);
const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1" });
registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true });
await adapter.start();
serveParent(adapter.address()?.port ?? 0, () => adapter.stop());
