import { createAdapter } from "@conduit-ai/adapter-hono";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { type ConduitProxy, type ProxyConfigInput, type ProxyOptions, createProxy } from "../index.js";

export const CLIENT_KEY = "client-key-0123456789abcdef";

export interface ProxyServer {
  url: string;
  proxy: ConduitProxy;
  stop(): Promise<void>;
}

/** A Conduit server (Hono adapter, loopback, ephemeral port) with the proxy mounted through `registerAllRoutes`. */
export async function startProxyServer(config: ProxyConfigInput, options: ProxyOptions = {}): Promise<ProxyServer> {
  const proxy = createProxy({ enabled: true, clientKeys: [CLIENT_KEY], retryBaseMs: 5, ...config }, options);
  const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false } });
  registerAllRoutes(adapter, undefined, { proxy });
  await adapter.start();
  return {
    url: `http://127.0.0.1:${adapter.address()?.port}`,
    proxy,
    stop: async () => {
      await adapter.stop();
      await proxy.close();
    },
  };
}
