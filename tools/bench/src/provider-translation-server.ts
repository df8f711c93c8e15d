// Child of `bench:provider-translation`: Conduit (Hono adapter) with the proxy's OpenAI surfaces
// over a runtime of two providers — `gemini` (type `google`, the Gemini API fake at argv[2]) and
// `compat` (type `openai-compatible`, the OpenAI fake at argv[3]). No pool account.
import { createAdapter } from "@conduit-ai/adapter-hono";
import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { createRuntime } from "@conduit-ai/runtime";
import { serveParent } from "./bench-children.js";

const runtime = createRuntime({
  env: {},
  maxRetries: 0,
  providers: {
    gemini: { type: "google", apiKeys: ["bench-gemini-key"], baseURL: `${process.argv[2]}/v1beta`, models: ["gemini-2.5-flash"] },
    compat: { type: "openai-compatible", baseURL: `${process.argv[3]}/v1`, models: ["llama3"] },
  },
});
const proxy = createProxy(
  // No per-credential limit: the bench sends thousands of calls a minute on one key.
  { enabled: true, clientKeys: ["bench-client-key-0123456789"], rateLimit: { enabled: false } },
  { chatCompletions: chatCompletionsFor(runtime), runtime },
);
const adapter = createAdapter(runtime, {
  port: 0,
  host: "127.0.0.1",
  logging: { enabled: false },
  rateLimit: { enabled: false },
  enableMetrics: false,
});
registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true });
await adapter.start();
serveParent(adapter.address()?.port ?? 0, async () => {
  await adapter.stop();
  await proxy.close();
  await runtime.close();
});
