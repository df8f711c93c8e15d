import type { DependencyHealth } from "@conduit-ai/server-core";
import { type UpstreamServerConfig, isHttpUpstream } from "../config/upstream-config.js";
import { RpcError } from "../jsonrpc/json-rpc-error.js";
import { UpstreamConnection } from "./upstream-connection.js";

/** A health check waits this long for a server. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Each server's health for `/health/detailed` and the console's Health page (`mcp-gateway:<name>`,
 * never required: one server down leaves the others working): one probe connection per server,
 * opened on the first check and kept, pinged per check (a check waits at most 2 s). A server whose calls carry each caller's
 * token (`forward`, `exchange`) is probed without one: answering 401 means it is up.
 */
export class UpstreamProbes {
  readonly #probes = new Map<string, UpstreamConnection>();

  constructor(
    private readonly servers: ReadonlyMap<string, UpstreamServerConfig>,
    private readonly timeoutMs: number,
  ) {}

  async check(server: string): Promise<DependencyHealth> {
    const config = this.servers.get(server) as UpstreamServerConfig;
    let probe = this.#probes.get(server);
    if (!probe) {
      const auth = isHttpUpstream(config) ? config.auth : undefined;
      const headers = auth?.mode === "static" ? { ...auth.headers } : {};
      probe = new UpstreamConnection({
        server,
        config,
        // The connection gets the server's own timeout: a stdio server's cold start may outlast a
        // check, and goes on in the background so that a later check finds it up.
        timeoutMs: this.timeoutMs,
        headers: async () => headers,
        onNotification: () => undefined,
        onSession: () => undefined,
      });
      this.#probes.set(server, probe);
    }
    const started = performance.now();
    try {
      const ping = probe.request("ping", undefined);
      ping.catch(() => undefined);
      await withinProbeTime(ping, Math.min(this.timeoutMs, PROBE_TIMEOUT_MS));
      return { status: "ok", required: false, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      const status = RpcError.isInstance(error) ? error.data?.status : undefined;
      const perCaller = isHttpUpstream(config) && (config.auth?.mode === "forward" || config.auth?.mode === "exchange");
      if (perCaller && (status === 401 || status === 403))
        return { status: "ok", required: false, message: "reachable; calls carry each caller's token" };
      return { status: "down", required: false, message: (error as Error).message };
    }
  }

  async close(): Promise<void> {
    const probes = [...this.#probes.values()];
    this.#probes.clear();
    await Promise.all(probes.map((probe) => probe.close()));
  }
}

/** The ping's answer, or a rejection once `ms` passed (the ping itself goes on). */
function withinProbeTime<T>(ping: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([ping, late]).finally(() => clearTimeout(timer));
}
