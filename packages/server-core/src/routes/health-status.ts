import type { ServerLifecycleState } from "../contracts/lifecycle.js";
import type { DependencyHealth, Runtime } from "../contracts/runtime.js";
import { uptimeClock } from "../core/pipeline/clock.js";

/** What health routes need to know about the server they run in. */
export interface HealthSource {
  readonly runtime: Runtime | undefined;
  getLifecycleState(): ServerLifecycleState;
  getActiveConnectionCount(): number;
  /** The server's own dependencies (e.g. the rate-limit store), beside the runtime's. */
  checkDependencies?(): Promise<Record<string, DependencyHealth>>;
}

const processUptime = uptimeClock();

/** Seconds since the process started (on Cloudflare Workers: since the isolate's first reading). */
export function processUptimeSeconds(): number {
  return Math.round(processUptime() / 100) / 10;
}

export interface Readiness {
  ready: boolean;
  state: ServerLifecycleState;
  dependencies: Record<string, DependencyHealth>;
}

/** Ready = running (not draining) and every required dependency of the runtime up. */
export async function checkReadiness(source: HealthSource): Promise<Readiness> {
  const state = source.getLifecycleState();
  let dependencies: Record<string, DependencyHealth> = {};
  let runtimeUp = true;
  if (source.runtime) {
    try {
      const health = await source.runtime.health();
      dependencies = health.dependencies;
      runtimeUp = health.status !== "down";
    } catch (error) {
      runtimeUp = false;
      dependencies = { runtime: { status: "down", required: true, message: (error as Error).message } };
    }
  }
  if (source.checkDependencies) dependencies = { ...dependencies, ...(await source.checkDependencies()) };
  const dependenciesUp = Object.values(dependencies).every((dependency) => !dependency.required || dependency.status !== "down");
  return { ready: state === "running" && runtimeUp && dependenciesUp, state, dependencies };
}
