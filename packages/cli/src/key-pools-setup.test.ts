import { createRuntime } from "@conduit-ai/runtime";
import { createServer } from "@conduit-ai/server-core";
import { getServerMetrics } from "@conduit-ai/server-core/metrics";
import { describe, expect, it } from "vitest";
import { attachKeyStatusGauge, setupKeyPools } from "./key-pools-setup.js";

const options = { redis: undefined, keyPrefix: "conduit:", warn: () => {} };

describe("the providers' key pools of conduit serve and conduit proxy", () => {
  it("are made only when a provider lists several apiKeys", async () => {
    expect(await setupKeyPools(undefined, options)).toBeUndefined();
    expect(await setupKeyPools({ groq: { type: "groq", apiKeys: ["one"] } }, options)).toBeUndefined();
    expect(await setupKeyPools({ groq: { type: "groq", apiKeys: ["one", "two"] } }, options)).toBeDefined();
  });

  it("report every pooled key's status as conduit_provider_key_status, never the key", async () => {
    const pools = await setupKeyPools({ groq: { type: "groq", apiKeys: ["gsk-secret-one", "gsk-secret-two"] } }, options);
    const runtime = createRuntime({
      env: {},
      providers: { groq: { type: "groq", apiKeys: ["gsk-secret-one", "gsk-secret-two"] } },
      ...(pools ? { keySources: pools.keySource } : {}),
    });
    const server = await createServer(runtime, { config: { enableMetrics: true } });
    try {
      attachKeyStatusGauge(server, pools);
      const text = await getServerMetrics(server)!.registry.metrics();
      const lines = text.split("\n").filter((line) => line.startsWith("conduit_provider_key_status{"));
      expect(lines).toHaveLength(6);
      expect(lines.filter((line) => line.includes('status="active"') && line.endsWith(" 1"))).toHaveLength(2);
      expect(text).not.toContain("gsk-secret");
    } finally {
      await runtime.close();
    }
  });
});
