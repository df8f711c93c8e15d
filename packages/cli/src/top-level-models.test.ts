import { describe, expect, it } from "vitest";
import { readConfigFile } from "./config-file.js";
import { runConduitInProcess } from "./test-support/run-in-process.js";
import { writeConfig } from "./test-support/spawn-conduit.js";

const route = { targets: [{ target: "groq/llama-3.3-70b-versatile", weight: 3 }, { target: "openai/gpt-4o-mini" }], strategy: "weighted" };
const gateway = { enabled: true, clientKeys: ["top-level-models-client-key"] };

describe("the top-level models key", () => {
  it.each(["serve", "proxy"] as const)("%s: is proxy.models by another name, merged with it", (command) => {
    const file = readConfigFile(writeConfig({ proxy: { enabled: true, models: { old: "local" } }, models: { fast: route } }), command);
    expect(file.models).toBeUndefined();
    expect((file.proxy as { models: unknown }).models).toEqual({ old: "local", fast: route });
  });

  it("refuses a routing name given in both places, naming it", () => {
    expect(() =>
      readConfigFile(writeConfig({ proxy: { enabled: true, models: { fast: "local" } }, models: { fast: route } }), "proxy"),
    ).toThrow(/models\.fast is also in proxy\.models/);
    expect(() => readConfigFile(writeConfig({ proxy: { enabled: true }, models: ["fast"] }), "proxy")).toThrow(/models must be an object/);
  });

  it.each([
    ["no proxy section", {}],
    ["a proxy that is not enabled", { proxy: { clientKeys: gateway.clientKeys } }],
  ])("refuses routing names with %s (nothing would serve them): exit 2 naming models and what it needs", async (_name, sections) => {
    const config = writeConfig({ ...sections, models: { fast: route } });
    for (const command of ["serve", "proxy"]) {
      const result = await runConduitInProcess([command, "--port", "0", "--config", config]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /models \(routing names\) needs the proxy surfaces that serve them: add "proxy": \{ "enabled": true \}/,
      );
    }
  });

  it.each(["serve", "proxy"])("%s: a bad strategy exits 2 naming models.<name>.strategy and the allowed values", async (command) => {
    const config = writeConfig({ proxy: gateway, models: { fast: { ...route, strategy: "fastest" } } });
    const result = await runConduitInProcess([command, "--port", "0", "--config", config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("models.fast.strategy: expected one of priority, weighted, least-busy, latency, cost");
    expect(result.stderr).not.toContain("proxy.models.fast");
    expect(result.stderr).not.toContain("invalid_union");
  });

  it("names proxy.models.<name> for a mistake in a name written under proxy", async () => {
    const config = writeConfig({ proxy: { ...gateway, models: { fast: { target: "groq/a", fallbacks: "groq/b" } } } });
    const result = await runConduitInProcess(["proxy", "--port", "0", "--config", config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("proxy.models.fast.fallbacks: Invalid input: expected array");
  });
});
