import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";
import { mcpTestBed, serveGuardedMcpGateway } from "./fixtures/mcp-gateway-bed.js";
import { eventually } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// Response guardrails on what an upstream MCP server sends besides a tool's result, as the
// official SDK client sees it: a tool call's progress messages (`notifications/progress`) and
// the server's log messages (`notifications/message`). A mask rewrites their text; a block drops
// a progress `message` (the progress itself still arrives) and replaces a log message's `data`
// with the violation's sentence — the session goes on either way.
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const EMAIL = "ada@example.com";

forEachAdapter("mcp gateway guardrails on progress and log notifications", ({ start }) => {
  const bed = mcpTestBed();
  async function serve() {
    const served = await serveGuardedMcpGateway(start, bed, {
      rules: [
        { name: "pii-out", kind: "pii", entities: ["email"], on: "response", action: "mask" },
        { name: "secrets-out", kind: "secrets", on: "response", action: "block" },
      ],
      default: ["pii-out", "secrets-out"],
    });
    return { ...served, client: await served.connect(await served.mint({ name: "agent" })) };
  }

  it("masks an email in each progress message; the hits are the call's (usage event, live feed)", async () => {
    const { client, hits, settled, feedHits } = await serve();
    const updates: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool({ name: "web__progress", arguments: { steps: 2, message: `mailing ${EMAIL}` } }, undefined, {
      onprogress: (update) => void updates.push({ progress: update.progress, ...(update.message ? { message: update.message } : {}) }),
    });
    expect(result.content).toEqual([{ type: "text", text: "done in 2 steps" }]);
    expect(updates).toEqual([
      { progress: 1, message: "mailing [EMAIL]" },
      { progress: 2, message: "mailing [EMAIL]" },
    ]);
    expect(hits.map((hit) => `${hit.guardrail}:${hit.action}:${hit.direction}`)).toEqual([
      "pii-out:mask:response",
      "pii-out:mask:response",
    ]);
    await eventually(() => settled.length === 1);
    expect(settled[0]?.guardrails).toEqual([
      { guardrail: "pii-out", action: "mask", direction: "response", entity: "email" },
      { guardrail: "pii-out", action: "mask", direction: "response", entity: "email" },
    ]);
    await eventually(() => feedHits().length === 2);
    expect(feedHits()).toEqual(["pii-out:mask:response:email", "pii-out:mask:response:email"]);
  });

  it("a blocked progress message is dropped, its progress still reaches the client and the call answers", async () => {
    const { client, settled } = await serve();
    const updates: Array<Record<string, unknown>> = [];
    const result = await client.callTool({ name: "web__progress", arguments: { steps: 2, message: `using ${SECRET}` } }, undefined, {
      onprogress: (update) => void updates.push({ ...update }),
    });
    expect(result.content).toEqual([{ type: "text", text: "done in 2 steps" }]);
    expect(updates).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
    await eventually(() => settled.length === 1);
    expect(settled[0]).toMatchObject({
      status: 200,
      guardrails: [{ guardrail: "secrets-out", action: "block" }, { guardrail: "secrets-out" }],
    });
  });

  it("masks a log message's data; a blocked one arrives with the violation instead, and the session goes on", async () => {
    const { client, hits } = await serve();
    const logged: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => void logged.push(notification.params));
    await client.setLoggingLevel("info");
    await client.callTool({ name: "web__log", arguments: { message: `contact ${EMAIL}` } });
    await eventually(() => logged.length === 1);
    expect(logged[0]).toEqual({ level: "info", logger: "web", data: "contact [EMAIL]" });
    await client.callTool({ name: "web__log", arguments: { message: `deploy key ${SECRET}` } });
    await eventually(() => logged.length === 2);
    expect(logged[1]).toMatchObject({ level: "info", logger: "web", data: expect.stringContaining("secrets-out") });
    expect(JSON.stringify(logged)).not.toContain(SECRET);
    expect(JSON.stringify(logged)).not.toContain(EMAIL);
    expect(hits.map((hit) => `${hit.guardrail}:${hit.action}`)).toEqual(["pii-out:mask", "secrets-out:block"]);
    expect(await client.callTool({ name: "web__echo", arguments: { text: "still here" } })).toMatchObject({
      content: [{ type: "text", text: "still here" }],
    });
  });
});
