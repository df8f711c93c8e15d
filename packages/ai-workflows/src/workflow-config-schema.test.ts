import { ConfigurationError } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { parseAiWorkflowsConfig } from "./workflow-config-schema.js";

/** The issues `parseAiWorkflowsConfig` raises for `input` (a failure if it accepts it). */
function issuesOf(input: unknown): Array<{ path: string; message: string }> {
  try {
    parseAiWorkflowsConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).issues;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe("parseAiWorkflowsConfig", () => {
  it("reads false as off, nothing as the defaults, and every limit", () => {
    expect(parseAiWorkflowsConfig(false)).toBe(false);
    expect(parseAiWorkflowsConfig(undefined)).toEqual({});
    const limits = {
      providerTimeoutMs: 5_000,
      maxOutputTokens: 512,
      maxPromptCharacters: 10_000,
      benchmarkCallTimeoutMs: 1_000,
      benchmarkBudgetMs: 2_000,
    };
    expect(parseAiWorkflowsConfig(limits)).toEqual(limits);
  });

  it("names an unknown key, a number that is not positive and a wrong type by key path", () => {
    expect(issuesOf({ timeoutMs: 5 })).toEqual([{ path: "aiWorkflows.timeoutMs", message: "unknown key" }]);
    expect(issuesOf({ providerTimeoutMs: 0 })).toEqual([{ path: "aiWorkflows.providerTimeoutMs", message: "expected a positive number" }]);
    expect(issuesOf({ maxOutputTokens: "512" })[0]).toMatchObject({
      path: "aiWorkflows.maxOutputTokens",
      message: expect.stringContaining("expected number"),
    });
    // The mount point is the server's, not the config file's.
    expect(issuesOf({ prefix: "/ai" })).toEqual([{ path: "aiWorkflows.prefix", message: "unknown key" }]);
    expect(issuesOf(true)[0]?.path).toBe("aiWorkflows");
    expect(issuesOf([])[0]?.path).toBe("aiWorkflows");
  });

  it("throws the one config-error type, its message naming the key", () => {
    expect(() => parseAiWorkflowsConfig({ benchmarkBudgetMs: -1 })).toThrow("aiWorkflows.benchmarkBudgetMs: expected a positive number");
  });
});
