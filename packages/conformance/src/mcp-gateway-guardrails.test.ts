import { expect, it } from "vitest";
import { mcpTestBed, serveGuardedMcpGateway } from "./fixtures/mcp-gateway-bed.js";
import { eventually } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// Guardrails on the MCP gateway's tool calls (packages/guardrails, `mcpToolGuard`), as the
// official SDK client sees them: arguments checked before they go upstream (a block is -32602 and
// nothing is sent, a mask sends the masked arguments), results checked before the client gets
// them (a mask rewrites them, a block is -32004); the key's and team's lists apply.
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const EMAIL = "ada@example.com";

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text?: string }>).map((item) => item.text).join("");

forEachAdapter("mcp gateway guardrails", ({ start }) => {
  const bed = mcpTestBed();
  const serve = () =>
    serveGuardedMcpGateway(start, bed, {
      rules: [
        { name: "no-secrets", kind: "secrets", on: "request", action: "block" },
        { name: "pii-in", kind: "pii", entities: ["email"], on: "request", action: "mask" },
        { name: "pii-out", kind: "pii", entities: ["email"], on: "response", action: "mask" },
        { name: "secrets-out", kind: "secrets", on: "response", action: "block" },
      ],
      default: ["no-secrets", "pii-in"],
    });

  const upstreamPosts = () => bed.web.requests.filter((request) => request.method === "POST").length;

  it("blocks a secret in a tool's arguments with -32602 naming the guardrail, and nothing reaches the upstream", async () => {
    const { connect, mint, hits, settled, feedHits } = await serve();
    const client = await connect(await mint({ name: "agent" }));
    expect(textOf(await client.callTool({ name: "web__echo", arguments: { text: "warm up" } }))).toBe("warm up");
    const before = upstreamPosts();
    const refusal = await client.callTool({ name: "web__echo", arguments: { text: `deploy with ${SECRET}` } }).catch((error) => error);
    expect(refusal).toMatchObject({
      code: -32602,
      data: { reason: "guardrail_violation", guardrail: "no-secrets", entity: "aws-access-key" },
    });
    expect(refusal.message).toContain("no-secrets");
    expect(refusal.message).not.toContain(SECRET);
    expect(upstreamPosts()).toBe(before);
    expect(hits).toEqual([{ guardrail: "no-secrets", kind: "secrets", action: "block", direction: "request", entity: "aws-access-key" }]);
    await eventually(() => settled.length === 2);
    expect(settled[1]).toMatchObject({
      status: 400,
      tool: { server: "web", name: "echo" },
      guardrails: [{ guardrail: "no-secrets", action: "block", direction: "request", entity: "aws-access-key" }],
    });
    await eventually(() => feedHits().length === 1);
    expect(feedHits()).toEqual(["no-secrets:block:request:aws-access-key"]);
    // The session goes on.
    expect(textOf(await client.callTool({ name: "web__echo", arguments: { text: "still here" } }))).toBe("still here");
  });

  it("masks an email in a tool's arguments: the upstream echoes the mask", async () => {
    const { connect, mint, settled } = await serve();
    const client = await connect(await mint({ name: "agent" }));
    const result = await client.callTool({ name: "web__echo", arguments: { text: `write to ${EMAIL}` } });
    expect(textOf(result)).toBe("write to [EMAIL]");
    await eventually(() => settled.length === 1);
    expect(settled[0]).toMatchObject({ status: 200, guardrails: [{ guardrail: "pii-in", action: "mask", direction: "request" }] });
  });

  it("masks an email in a tool's result, with the key's own list (`!name` drops the argument mask)", async () => {
    const { connect, mint, settled } = await serve();
    const client = await connect(await mint({ name: "results", guardrails: ["!pii-in", "pii-out"] }));
    const result = await client.callTool({ name: "web__echo", arguments: { text: `reply to ${EMAIL}` } });
    expect(textOf(result)).toBe("reply to [EMAIL]");
    await eventually(() => settled.length === 1);
    expect(settled[0]?.guardrails).toEqual([{ guardrail: "pii-out", action: "mask", direction: "response", entity: "email" }]);
  });

  it("a key's `!name` lets a secret through; its team's answer rule blocks the result with -32004", async () => {
    const { connect, mint } = await serve();
    const opted = await connect(await mint({ name: "opted-out", guardrails: ["!no-secrets"] }));
    expect(textOf(await opted.callTool({ name: "web__echo", arguments: { text: `key ${SECRET}` } }))).toBe(`key ${SECRET}`);
    const team = { id: "red", name: "Red", guardrails: ["secrets-out"] };
    const guarded = await connect(await mint({ name: "red-agent", team: "red", guardrails: ["!no-secrets"] }, team));
    const refusal = await guarded.callTool({ name: "web__echo", arguments: { text: `key ${SECRET}` } }).catch((error) => error);
    expect(refusal).toMatchObject({ code: -32004, data: { reason: "guardrail_violation", guardrail: "secrets-out" } });
    expect(String(refusal.message)).not.toContain(SECRET);
  });
});
