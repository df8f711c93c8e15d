import { describe, expect, it } from "vitest";
import { createGuardrails } from "./guardrails.js";
import type { GuardrailHit } from "./match-rules.js";
import { mcpToolGuard } from "./mcp-tool-guard.js";

const slot = (text: string) => {
  const holder = {
    text,
    replace: (next: string) => {
      holder.text = next;
    },
  };
  return holder;
};
const call = { server: "web", tool: "echo", namespacedName: "web__echo" };

describe("mcpToolGuard", () => {
  const recorded: GuardrailHit[] = [];
  const guard = mcpToolGuard(
    createGuardrails(
      {
        rules: [
          { name: "pii", kind: "pii", on: "request", action: "mask" },
          { name: "no-secrets", kind: "secrets", on: "response", action: "block" },
        ],
        default: ["pii"],
      },
      { onHit: (hit) => recorded.push(hit) },
    ),
  );

  it("masks with the defaults, records the hits and hands back the four fields", async () => {
    const text = slot("mail ada@example.com");
    const verdict = await guard.check("request", [text], call);
    expect(text.text).toBe("mail [EMAIL]");
    expect(verdict).toEqual({ hits: [{ guardrail: "pii", action: "mask", direction: "request", entity: "email" }] });
    expect(recorded.at(-1)).toMatchObject({ guardrail: "pii", kind: "pii" });
  });

  it("takes the key's list: `!name` drops a default, a name adds a rule whose block names guardrail and entity", async () => {
    const identity = { keyId: "key_1", name: "agent", guardrails: ["!pii", "no-secrets"] };
    const untouched = slot("mail ada@example.com");
    expect(await guard.check("request", [untouched], { ...call, identity })).toEqual({ hits: [] });
    expect(untouched.text).toBe("mail ada@example.com");
    const verdict = await guard.check("response", [slot("AKIAIOSFODNN7EXAMPLE")], { ...call, identity });
    expect(verdict.block).toEqual({ message: expect.stringContaining("no-secrets"), guardrail: "no-secrets", entity: "aws-access-key" });
    expect(verdict.block?.message).not.toContain("AKIAIOSFODNN7EXAMPLE");
  });

  it("a name the config lacks blocks the key's arguments (fail closed)", async () => {
    const verdict = await guard.check("request", [slot("hello")], { ...call, identity: { keyId: "k", name: "k", guardrails: ["nope"] } });
    expect(verdict.block).toMatchObject({ guardrail: "nope", entity: "not-configured" });
  });
});
