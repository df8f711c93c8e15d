import { describe, expect, it } from "vitest";
import { parseGovernanceConfig } from "./governance-config.js";

describe("parseGovernanceConfig", () => {
  it("names each bad field from its config key", () => {
    expect(() => parseGovernanceConfig({ admin: { keys: ["short"] } })).toThrow(
      "invalid admin.keys.0: an admin key has at least 32 characters",
    );
    expect(() => parseGovernanceConfig({ keys: "redis" })).toThrow(/^invalid keys: /);
  });

  it("passes good keys through with defaults", () => {
    expect(parseGovernanceConfig({ keys: {} }).keys).toMatchObject({ store: "memory" });
  });
});
