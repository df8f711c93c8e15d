import { createGuardrails } from "@conduit-ai/guardrails";
import { afterEach, expect, it } from "vitest";
import { type GovernedGateway, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// Request guardrails on the codex surface (`/backend-api/codex/responses`): a block is a 400 in
// the codex backend's error shape and nothing goes upstream; a mask sends the masked body; with
// no guardrail the client's bytes go upstream untouched.
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const EMAIL = "grace.hopper@example.com";
const PATH = "/backend-api/codex/responses";
const bodyWith = (text: string) => ({ model: "gpt-5-codex", stream: true, input: [{ role: "user", content: text }] });

forEachAdapter("guardrails on the codex surface", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it("blocks a request with 400 guardrail_violation in codex's shape, nothing sent upstream", async () => {
    gateway = await startGovernedGateway(start, {
      guardrails: createGuardrails({
        rules: [{ name: "no-secrets", kind: "secrets", on: "request", action: "block" }],
        default: ["no-secrets"],
      }),
    });
    const { key } = await gateway.mint({});
    const answer = await gateway.post(PATH, key, bodyWith(`use ${SECRET}`));
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ type: "guardrail_violation", code: "guardrail_violation" });
    expect(answer.json.error.message).toContain("no-secrets");
    expect(answer.text).not.toContain(SECRET);
    expect(gateway.codex.requests).toHaveLength(0);
  });

  it("masks a request before it goes upstream; without a guardrail the bytes go as they came", async () => {
    gateway = await startGovernedGateway(start, {
      guardrails: createGuardrails({ rules: [{ name: "pii", kind: "pii", on: "request", action: "mask" }], default: ["pii"] }),
    });
    const masked = await gateway.mint({});
    expect((await gateway.post(PATH, masked.key, bodyWith(`write to ${EMAIL}`))).status).toBe(200);
    const sent = gateway.codex.requests.at(-1)?.raw.toString("utf8") ?? "";
    expect(sent).toContain("write to [EMAIL]");
    expect(sent).not.toContain(EMAIL);
    const unguarded = await gateway.mint({ guardrails: ["!pii"] });
    const text = ` ${JSON.stringify(bodyWith(`write to ${EMAIL}`))}`;
    expect((await gateway.post(PATH, unguarded.key, text)).status).toBe(200);
    expect(gateway.codex.requests.at(-1)?.raw.toString("utf8")).toBe(text);
  });
});
