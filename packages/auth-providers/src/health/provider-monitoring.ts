import type { DependencyHealth } from "@conduit-ai/server-core";
import { type Gauge, getServerMetrics } from "@conduit-ai/server-core/metrics";
import type { BaseAuthProvider } from "../base-provider.js";

/** What monitoring needs from a server: readiness checks (its metrics, when on, are found by `getServerMetrics`). */
export interface MonitoredServer {
  registerHealthCheck(name: string, check: () => Promise<DependencyHealth | undefined>): void;
}

export const AUTH_PROVIDER_UP_METRIC = "conduit_auth_provider_up";

const watched = new WeakMap<object, Set<BaseAuthProvider>>();

/**
 * Puts a provider's identity provider into the server's readiness and metrics: readiness
 * (`/ready`, `/api/health/ready`, `/api/health/detailed`) reports `authProvider` down — required,
 * so the server is not ready — from the first request the identity provider did not answer
 * until it answers again (while down, each readiness check probes it, so recovery is seen without
 * traffic); the gauge `conduit_auth_provider_up{provider}` is 1 or 0 (with `enableMetrics`).
 *
 * @example
 * const setup = await createProviderAuthFromConfig(config.auth);
 * monitorAuthProvider(server, setup.provider);
 */
export function monitorAuthProvider(server: MonitoredServer, provider: BaseAuthProvider, options: { required?: boolean } = {}): void {
  const required = options.required ?? true;
  let probing: Promise<unknown> | undefined;
  server.registerHealthCheck("authProvider", async () => {
    if (!provider.availability.up) {
      // One probe at a time; its request reports back to `availability` (answered → up again).
      probing ??= provider.healthCheck().finally(() => {
        probing = undefined;
      });
      await probing;
    }
    const availability = provider.availability;
    if (availability.up) return { status: "ok", required };
    return { status: "down", required, message: `identity provider ${availability.host ?? provider.type} unreachable` };
  });
  const registry = getServerMetrics(server)?.registry;
  if (!registry) return;
  let providers = watched.get(registry);
  if (!providers) {
    const set = new Set<BaseAuthProvider>();
    providers = set;
    watched.set(registry, set);
    registry.gauge<"provider">({
      name: AUTH_PROVIDER_UP_METRIC,
      help: "1 while the identity provider answers, 0 during an outage (by provider type)",
      labelNames: ["provider"],
      collect(this: Gauge<"provider">) {
        for (const each of set) this.set({ provider: each.type }, each.availability.up ? 1 : 0);
      },
    });
  }
  providers.add(provider);
}
