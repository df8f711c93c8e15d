import { MCP_FIXTURE_STDIO_SCRIPT, MCP_FIXTURE_TOOLS, type McpHttpFixture, startMcpHttpFixture } from "@conduit-ai/fakes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import { rejection } from "../testing/rejection.js";

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("MCP servers over stdio and Streamable HTTP", () => {
  let http: McpHttpFixture;
  let runtime: ReturnType<typeof createRuntime>;

  beforeAll(async () => {
    http = await startMcpHttpFixture();
    runtime = createRuntime({
      env: {},
      mcpServers: {
        local: { command: process.execPath, args: [MCP_FIXTURE_STDIO_SCRIPT] },
        remote: { url: http.url },
        broken: { command: process.execPath, args: ["-e", "process.exit(3)"] },
      },
      mcp: { initialDelayMs: 100, maxDelayMs: 400, requestTimeoutMs: 3_000 },
    });
    await runtime.ready();
  });
  afterAll(async () => {
    await runtime.close();
    await http.close();
  });

  it("lists servers with status, transport and tool counts", async () => {
    const servers = await runtime.mcp.list();
    expect(servers.find((server) => server.name === "local")).toEqual({
      name: "local",
      status: "connected",
      transport: "stdio",
      toolCount: MCP_FIXTURE_TOOLS.length,
      lastError: null,
    });
    expect(servers.find((server) => server.name === "remote")).toMatchObject({
      status: "connected",
      transport: "http",
      toolCount: MCP_FIXTURE_TOOLS.length,
    });
    // A dead server alternates between "error" and "connecting" (the backoff retries), always with its last error.
    expect(await runtime.mcp.get("broken")).toMatchObject({
      status: expect.stringMatching(/^(error|connecting)$/),
      toolCount: 0,
      lastError: expect.any(String),
    });
    expect(await runtime.mcp.get("missing")).toBeUndefined();
  });

  it("lists and executes tools on both transports", async () => {
    expect((await runtime.mcp.listTools("remote")).map((tool) => tool.name).sort()).toEqual([...MCP_FIXTURE_TOOLS].sort());
    const tools = await runtime.mcp.listTools("local");
    expect(tools.find((tool) => tool.name === "add")).toMatchObject({ source: "mcp:local", inputSchema: { type: "object" } });
    expect((await runtime.mcp.executeTool("local", "add", { a: 2, b: 3 })).result).toEqual([{ type: "text", text: "5" }]);
    expect((await runtime.mcp.executeTool("remote", "echo", { text: "over http" })).result).toEqual([{ type: "text", text: "over http" }]);
  });

  it("maps unknown servers, unknown tools, bad arguments and tool errors", async () => {
    expect(await rejection(runtime.mcp.executeTool("missing", "add", {}))).toMatchObject({ statusCode: 404, code: "MCP_SERVER_NOT_FOUND" });
    expect(await rejection(runtime.mcp.listTools("missing"))).toMatchObject({ statusCode: 404 });
    expect(await rejection(runtime.mcp.executeTool("remote", "nope", {}))).toMatchObject({ statusCode: 404, code: "TOOL_NOT_FOUND" });
    expect(await rejection(runtime.mcp.executeTool("remote", "add", { a: "x" }))).toMatchObject({
      statusCode: 400,
      code: "VALIDATION_ERROR",
    });
    expect(await rejection(runtime.mcp.executeTool("remote", "fail", {}))).toMatchObject({
      statusCode: 502,
      code: "TOOL_EXECUTION_FAILED",
    });
    expect(await rejection(runtime.mcp.executeTool("broken", "add", {}))).toMatchObject({
      statusCode: 503,
      code: "MCP_SERVER_UNAVAILABLE",
    });
  });

  it("exposes MCP tools in the tool registry with source mcp:<server>", async () => {
    const found = await runtime.tools.search({ source: "mcp:remote" });
    expect(found.map((tool) => tool.name).sort()).toEqual(MCP_FIXTURE_TOOLS.map((name) => `mcp__remote__${name}`).sort());
    expect((await runtime.tools.execute("mcp__local__add", { a: 20, b: 22 })).result).toEqual([{ type: "text", text: "42" }]);
  });

  it("reports per-server health without making MCP required", async () => {
    const health = await runtime.health();
    expect(health.dependencies["mcp:local"]).toMatchObject({ status: "ok", required: false });
    expect(health.dependencies["mcp:broken"]).toMatchObject({ status: expect.stringMatching(/^(down|degraded)$/), required: false });
    expect(health.status).toBe("degraded");
  });

  it("reconnects a stdio server after its process is killed", async () => {
    const connection = runtime.mcp.connection("local");
    const firstPid = connection.processId;
    expect(firstPid).toBeGreaterThan(0);
    process.kill(firstPid as number, "SIGKILL");
    await eventually(() => connection.status !== "connected");
    expect(await rejection(runtime.mcp.executeTool("local", "add", { a: 1, b: 1 }))).toMatchObject({ statusCode: 503 });
    await eventually(() => connection.status === "connected");
    expect(connection.processId).not.toBe(firstPid);
    expect((await runtime.mcp.executeTool("local", "pid", {})).result).toEqual([{ type: "text", text: String(connection.processId) }]);
  });

  it("reconnects an HTTP server after it is closed and restarted", async () => {
    await http.close();
    const failure = await rejection(runtime.mcp.executeTool("remote", "add", { a: 1, b: 2 }));
    expect(failure).toMatchObject({ statusCode: 503, code: "MCP_SERVER_UNAVAILABLE" });
    expect((await runtime.mcp.get("remote"))?.status).not.toBe("connected");
    expect(await runtime.tools.get("mcp__remote__add")).toBeUndefined();
    http = await startMcpHttpFixture({ port: http.port });
    await eventually(async () => (await runtime.mcp.get("remote"))?.status === "connected");
    expect((await runtime.mcp.executeTool("remote", "add", { a: 1, b: 2 })).result).toEqual([{ type: "text", text: "3" }]);
  });
});
