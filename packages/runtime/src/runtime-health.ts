import type { DependencyHealth, RuntimeHealth } from "@conduit-ai/server-core";
import type { McpManager } from "./mcp/mcp-manager.js";
import type { ConversationStore } from "./memory/conversation-store.js";

/**
 * The runtime's dependencies as `/health` reports them: the memory store when it can be pinged
 * (Redis: required, so down makes the whole runtime down) and every MCP server. `degraded`
 * when anything is not ok but nothing required is down.
 */
export async function runtimeHealth(memory: ConversationStore, mcp: McpManager): Promise<RuntimeHealth> {
  const dependencies: Record<string, DependencyHealth> = {};
  if (memory.ping) {
    const started = performance.now();
    try {
      await memory.ping();
      dependencies.redis = { status: "ok", required: true, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      dependencies.redis = { status: "down", required: true, message: error instanceof Error ? error.message : String(error) };
    }
  }
  Object.assign(dependencies, await mcp.health());
  const values = Object.values(dependencies);
  const status = values.some((entry) => entry.required && entry.status === "down")
    ? "down"
    : values.some((entry) => entry.status !== "ok")
      ? "degraded"
      : "ok";
  return { status, dependencies };
}
