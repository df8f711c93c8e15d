// Child of `bench:guardrails`: proxy-server.ts's Conduit (Hono, default stack, /v1/messages over
// one account on the fake upstream), with `pii` + `secrets` masking both directions when argv[3]
// is `on`, none when `off`.
import { createAdapter } from "@conduit-ai/adapter-hono";
import { createGuardrails } from "@conduit-ai/guardrails";
import { createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { serveParent } from "./bench-children.js";

const upstream = process.argv[2] ?? "";
const on = process.argv[3] === "on";
const guardrails = on
  ? createGuardrails({
      rules: [
        { name: "pii", kind: "pii", action: "mask", on: "both" },
        { name: "secrets", kind: "secrets", action: "mask", on: "both" },
      ],
      default: ["pii", "secrets"],
    })
  : undefined;
const proxy = createProxy(
  {
    enabled: true,
    upstream: { anthropic: upstream },
    clientKeys: ["bench-client-key-0123456789"],
    accounts: [{ id: "bench", type: "api-key", apiKey: "sk-bench", maxInFlight: 10_000 }],
    rateLimit: { maxRequests: 1_000_000_000 },
  },
  guardrails ? { guardrails } : {},
);
const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1" });
registerProxyRoutes(adapter, proxy, { messages: true });
await adapter.start();
serveParent(adapter.address()?.port ?? 0, () => adapter.stop());
