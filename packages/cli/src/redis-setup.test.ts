import { describe, expect, it } from "vitest";
import { redisTopologyOf } from "./redis-setup.js";
import { runConduitInProcess } from "./test-support/run-in-process.js";
import { writeConfig } from "./test-support/spawn-conduit.js";

describe("the Redis topology of conduit serve", () => {
  it("takes the environment over the config file's redis key, and checks the key's shape", () => {
    const file = { cluster: ["10.0.0.1:7000"] };
    expect(redisTopologyOf({}, file)).toMatchObject({ form: "cluster", nodes: [{ host: "10.0.0.1", port: 7000 }] });
    expect(redisTopologyOf({ REDIS_SENTINELS: "127.0.0.1:26379", REDIS_SENTINEL_MASTER: "m" }, file)).toMatchObject({ form: "sentinel" });
    expect(() => redisTopologyOf({}, { cluster: "10.0.0.1:7000" })).toThrow(/redis\.cluster must be a list/);
    expect(() => redisTopologyOf({}, { nodes: [] })).toThrow(/unknown key redis\.nodes/);
  });

  it("exits 2 naming both when two forms are configured at once, before starting anything", async () => {
    const both = await runConduitInProcess(["serve", "--port", "0"], {
      REDIS_URL: "redis://127.0.0.1:6379",
      REDIS_CLUSTER_NODES: "127.0.0.1:7000",
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/REDIS_URL and REDIS_CLUSTER_NODES are both set/);
    const config = writeConfig({ redis: { url: "redis://127.0.0.1:6379", sentinels: ["127.0.0.1:26379"], name: "m" } });
    const inFile = await runConduitInProcess(["serve", "--port", "0", "--config", config]);
    expect(inFile.code).toBe(2);
    expect(inFile.stderr).toMatch(/redis\.url and redis\.sentinels are both set/);
  }, 60_000);
});
