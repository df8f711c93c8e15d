import { ConfigurationError } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { parseProxyConfig } from "./config.js";

describe("parseProxyConfig", () => {
  it("fills the defaults", () => {
    expect(parseProxyConfig({ enabled: true })).toMatchObject({ store: "memory", maxRetries: 2, timeoutMs: 600_000 });
  });

  it("throws a ConfigurationError naming the key, never the secret", () => {
    let thrown: unknown;
    try {
      parseProxyConfig({ accounts: [{ id: "a", type: "api-key", apiKey: "sk-secret-value", maxInFlight: -1 }] });
    } catch (error) {
      thrown = error;
    }
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
    const error = thrown as ConfigurationError;
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.message).toContain("proxy.accounts.0.maxInFlight");
    expect(error.details).toMatchObject({ key: "proxy.accounts.0.maxInFlight" });
    expect(JSON.stringify(error.toJSON())).not.toContain("sk-secret-value");
  });

  it("bounds prices: one above $10,000 per million tokens (1e308) is refused, naming the field", () => {
    expect(() => parseProxyConfig({ prices: { "claude-x": { input: 1, output: 1e308 } } })).toThrow("proxy.prices.claude-x.output");
    expect(parseProxyConfig({ prices: { "claude-x": { input: 1, output: 10_000 } } }).prices["claude-x"]).toMatchObject({ output: 10_000 });
  });

  it.each([
    [
      { targets: ["groq/a"], strategy: "fastest" },
      "proxy.models.fast.strategy: expected one of priority, weighted, least-busy, latency, cost",
    ],
    [{ targets: [{ target: "groq/a", weight: 0 }], strategy: "weighted" }, "proxy.models.fast.targets.0.weight: Too small"],
    [{ targets: [{ target: "groq/a", share: 2 }] }, "proxy.models.fast.targets.0: unknown key(s) share"],
    [{ targets: [7] }, "proxy.models.fast.targets.0: expected string or object"],
    [{ target: "groq/a", fallbacks: "groq/b" }, "proxy.models.fast.fallbacks: Invalid input: expected array"],
    [{ target: "groq/a", strategy: "weighted" }, "proxy.models.fast: unknown key(s) strategy"],
    [42, "proxy.models.fast: expected string or object"],
  ])("names the key of a routing name's mistake and what it takes, not zod's invalid_union (%j)", (route, message) => {
    let thrown: unknown;
    try {
      parseProxyConfig({ models: { fast: route } });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).not.toContain("invalid_union");
  });

  it("names the types an account may have", () => {
    expect(() => parseProxyConfig({ accounts: [{ id: "a", type: "magic" }] })).toThrow(
      "proxy.accounts.0.type: expected one of api-key, oauth",
    );
  });
});
