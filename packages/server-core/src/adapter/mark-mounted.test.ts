import { describe, expect, it } from "vitest";
import type { ServerAdapterEvents } from "../contracts/events.js";
import type { ServerLifecycleState } from "../contracts/lifecycle.js";
import { createTestApp } from "../testing/test-kit.js";

describe("markMounted()", () => {
  it("walks the lifecycle table to running and emits started (mounted, no port of its own)", async () => {
    const { adapter } = createTestApp();
    const started: ServerAdapterEvents["started"][] = [];
    adapter.on("started", (event: ServerAdapterEvents["started"]) => started.push(event));
    adapter.markMounted();
    expect(adapter.getLifecycleState()).toBe<ServerLifecycleState>("running");
    expect(started).toEqual([expect.objectContaining({ port: 0, host: "", mounted: true })]);
    expect(adapter.getStatus()).toMatchObject({ running: true, activeConnections: 0 });
  });

  it("drains on stop() without a server, and mounts again afterwards", async () => {
    const { adapter } = createTestApp();
    adapter.markMounted();
    await adapter.stop();
    expect(adapter.getLifecycleState()).toBe<ServerLifecycleState>("stopped");
    adapter.markMounted();
    expect(adapter.getLifecycleState()).toBe<ServerLifecycleState>("running");
    await adapter.stop();
  });
});
