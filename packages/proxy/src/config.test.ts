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
});
