import { once } from "node:events";
import { type AddressInfo, type Server, type Socket, connect, createServer } from "node:net";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { isStoreUnavailable } from "../errors/store-unavailable.js";
import { FAIL_FAST_REDIS_OPTIONS, whenConnected } from "./redis-client.js";

/**
 * `whenConnected` never holds a request past the 1 s store deadline: a first connection that
 * does not complete fails after 1 s, and a client that was ready and is reconnecting (what a
 * sentinel failover looks like to it) fails at once.
 */
const REDIS = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");

interface Proxy {
  port: number;
  /** Forwarding to the real Redis (true) or accepting and never answering (false). */
  forwarding: boolean;
  /** Drops every open connection. */
  cut(): void;
  close(): Promise<void>;
}

/** A TCP proxy to the real Redis that can be switched into a black hole. */
async function startProxy(): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const state = { forwarding: true };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    if (!state.forwarding) return;
    const upstream = connect(Number(REDIS.port || 6379), REDIS.hostname);
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    get forwarding() {
      return state.forwarding;
    },
    set forwarding(value: boolean) {
      state.forwarding = value;
    },
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A client on the proxy; its errors (a black hole's timeouts) are expected here, not unhandled. */
function clientOf(proxy: Proxy): Redis {
  const client = new Redis(proxy.port, "127.0.0.1", { ...FAIL_FAST_REDIS_OPTIONS, connectTimeout: 10_000 });
  client.on("error", () => undefined);
  cleanups.push(
    () => client.disconnect(),
    () => proxy.close(),
  );
  return client;
}

async function failure(promise: Promise<void> | undefined): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await promise;
    return { error: undefined, ms: Date.now() - started };
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
}

describe("whenConnected", () => {
  it("waits for a first connection, but at most 1 s", async () => {
    const proxy = await startProxy();
    proxy.forwarding = false;
    const client = clientOf(proxy);
    const { error, ms } = await failure(whenConnected(client, "memory"));
    expect(isStoreUnavailable(error)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(1_500);
  });

  it("resolves once the first connection is ready", async () => {
    const proxy = await startProxy();
    const client = clientOf(proxy);
    const { error } = await failure(whenConnected(client, "memory"));
    expect(error).toBeUndefined();
    expect(client.status).toBe("ready");
  });

  it("fails at once while a client that was ready reconnects", async () => {
    const proxy = await startProxy();
    const client = clientOf(proxy);
    await whenConnected(client, "memory");
    expect(whenConnected(client, "memory")).toBeUndefined();
    proxy.forwarding = false;
    proxy.cut();
    // The reconnection reaches the black hole and stays in `connect`/`connecting`.
    const deadline = Date.now() + 5_000;
    while (!["connecting", "connect"].includes(client.status) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(["connecting", "connect"]).toContain(client.status);
    const started = Date.now();
    let thrown: unknown;
    try {
      await whenConnected(client, "memory");
    } catch (error) {
      thrown = error;
    }
    expect(isStoreUnavailable(thrown)).toBe(true);
    expect(Date.now() - started).toBeLessThan(50);
  });
});
