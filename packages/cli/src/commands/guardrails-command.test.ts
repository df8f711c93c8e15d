import { describe, expect, it } from "vitest";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { writeConfig } from "../test-support/spawn-conduit.js";

// `conduit guardrails test` (in-process: test-support/run-in-process.ts): one line per configured rule, what it would do.

describe("conduit guardrails test", () => {
  it("prints each rule's decision and the masked text", async () => {
    const config = writeConfig({
      guardrails: {
        rules: [
          { name: "pii", kind: "pii", action: "mask" },
          { name: "no-secrets", kind: "secrets", action: "block" },
          { name: "tickets", kind: "regex", patterns: ["PRJ-\\d{4}"], action: "log", on: "response" },
          { name: "caps", kind: "size", maxInputTokens: 1000 },
        ],
        default: ["pii", "no-secrets"],
      },
    });
    const run = await runConduitInProcess([
      "guardrails",
      "test",
      "--config",
      config,
      "mail ada@example.com about PRJ-1234 with AKIAIOSFODNN7EXAMPLE",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      "pii (pii, request, default): mask — email ×1 → mail [EMAIL] about PRJ-1234 with AKIAIOSFODNN7EXAMPLE",
      "no-secrets (secrets, request, default): block — aws-access-key ×1",
      "tickets (regex, response, by key or team): log — tickets ×1",
      "caps (size, request, by key or team): pass",
    ]);
  });

  it("exits 2 naming a refused pattern", async () => {
    const config = writeConfig({ guardrails: { rules: [{ name: "r", kind: "regex", patterns: ["(x+x+)+y"] }] } });
    const run = await runConduitInProcess(["guardrails", "test", "--config", config, "text"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/guardrails\.rules\.0\.patterns\.0: refused/);
  });
});
