// Child of `bench:proxy`: Conduit (Hono adapter) with the proxy mounted, one API-key account on the fake upstream.
import { createAdapter } from "@conduit-ai/adapter-hono";
import { createProxy } from "@conduit-ai/proxy";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { serveParent } from "./bench-children.js";

const upstream = process.argv[2] ?? "";
const proxy = createProxy({
  enabled: true,
  upstream: { anthropic: upstream },
  clientKeys: ["bench-client-key-0123456789"],
  accounts: [{ id: "bench", type: "api-key", apiKey: "sk-bench", maxInFlight: 10_000 }],
});
const adapter = createAdapter(undefined, {
  port: 0,
  host: "127.0.0.1",
  logging: { enabled: false },
  rateLimit: { enabled: false },
  enableMetrics: false,
});
registerAllRoutes(adapter, undefined, { proxy });
await adapter.start();
serveParent(adapter.address()?.port ?? 0, () => adapter.stop());
