import { describe, expect, it } from "vitest";
import { listAllows, serverAllowed, toolAllowed } from "./access-policy.js";

describe("MCP access policies", () => {
  it("patterns: * matches any rest, ! excludes and always wins, exclusions alone let the rest through", () => {
    const patterns = ["github__*", "!github__delete_*"];
    expect(listAllows(patterns, "github__search")).toBe(true);
    expect(listAllows(patterns, "github__delete_repo")).toBe(false);
    expect(listAllows(patterns, "files__read")).toBe(false);
    expect(listAllows(["!files__write*"], "files__read")).toBe(true);
    expect(listAllows(["!files__write*"], "files__write_file")).toBe(false);
    expect(listAllows(undefined, "anything")).toBe(true);
    expect(listAllows([], "anything")).toBe(true);
    // Regex characters in names are literal.
    expect(listAllows(["a.b__*"], "axb__c")).toBe(false);
  });

  it("the key's and its team's policies must both allow; servers narrow tools", () => {
    const key = { tools: ["github__*", "files__read"] };
    const team = { servers: ["github"] };
    expect(toolAllowed([key, team], "github", "github__search")).toBe(true);
    expect(toolAllowed([key, team], "files", "files__read")).toBe(false);
    expect(serverAllowed([key, team], "files")).toBe(false);
    expect(serverAllowed(undefined, "files")).toBe(true);
  });
});
