import { describe, expect, it } from "vitest";
import { readConfigFile } from "./config-file.js";
import { writeConfig } from "./test-support/spawn-conduit.js";

const route = { targets: [{ target: "groq/llama-3.3-70b-versatile", weight: 3 }, { target: "openai/gpt-4o-mini" }], strategy: "weighted" };

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
});
