import { type McpHttpFixture, startMcpHttpFixture } from "@conduit-ai/fakes";
import type { Governance } from "@conduit-ai/governance";
import { type GuardrailHit, createGuardrails, mcpToolGuard } from "@conduit-ai/guardrails";
import type { McpGateway } from "@conduit-ai/mcp-gateway";
import type { Gate, GateAdmission, GateUsage } from "@conduit-ai/server-core";
import { type RequestFeed, installRequestFeed } from "@conduit-ai/server-core/internal";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, expect, it } from "vitest";
import { connectClient, eventually, gatewayOf, memoryGovernance, mintKey } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// Guardrails on the MCP gateway's tool calls (packages/guardrails, `mcpToolGuard`), as the
// official SDK client sees them: arguments checked before they go upstream (a block is -32602 and
// nothing is sent, a mask sends the masked arguments), results checked before the client gets
// them (a mask rewrites them, a block is -32004); the key's and team's lists apply.
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const EMAIL = "ada@example.com";

/** The real gate, its settlements observed (the usage events' guardrail hits). */
function observedGate(gate: Gate, settled: GateUsage[]): Gate {
  const observe = (admission: GateAdmission): GateAdmission =>
    new Proxy(admission, {
      get(target, property) {
        if (property === "settle")
          return (usage: GateUsage) => {
            settled.push(usage);
            return target.settle(usage);
          };
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(gate, {
    get(target, property) {
      if (property === "admit")
        return async (...args: Parameters<Gate["admit"]>) => {
          const decision = await target.admit(...args);
          return "refused" in decision ? decision : observe(decision);
        };
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text?: string }>).map((item) => item.text).join("");

forEachAdapter("mcp gateway guardrails", ({ start }) => {
  let web: McpHttpFixture;
  let governance: Governance;
  const gateways: McpGateway[] = [];
  const clients: Client[] = [];
  beforeEach(async () => {
    web = await startMcpHttpFixture({ name: "web" });
    governance = await memoryGovernance();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const gateway of gateways.splice(0)) await gateway.close();
    await governance.close();
    await web.close();
  });

  async function serve() {
    const hits: GuardrailHit[] = [];
    const settled: GateUsage[] = [];
    const guardrails = createGuardrails(
      {
        rules: [
          { name: "no-secrets", kind: "secrets", on: "request", action: "block" },
          { name: "pii-in", kind: "pii", entities: ["email"], on: "request", action: "mask" },
          { name: "pii-out", kind: "pii", entities: ["email"], on: "response", action: "mask" },
          { name: "secrets-out", kind: "secrets", on: "response", action: "block" },
        ],
        default: ["no-secrets", "pii-in"],
      },
      { onHit: (hit) => hits.push(hit) },
    );
    const gateway = gatewayOf(
      { servers: { web: { url: web.url } }, gate: observedGate(governance.gate, settled), toolGuard: mcpToolGuard(guardrails) },
      gateways,
    );
    let feed: RequestFeed | undefined;
    const server = await start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        feed = installRequestFeed(adapter);
        governance.install(adapter);
        gateway.install(adapter);
      },
    });
    const connect = async (key: string) => {
      const { client } = await connectClient(server.url("/mcp"), key);
      clients.push(client);
      return client;
    };
    const mint = (key: Record<string, unknown>, team?: Record<string, unknown>) => mintKey(server.url(""), key, team);
    // The console's Live page reads this feed: the hits of each /mcp request, never their text.
    const feedHits = () => (feed?.recent() ?? []).flatMap((event) => event.guardrails ?? []);
    return { connect, mint, hits, settled, feedHits };
  }

  const upstreamPosts = () => web.requests.filter((request) => request.method === "POST").length;

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
