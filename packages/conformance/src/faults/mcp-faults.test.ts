import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCP_FIXTURE_STDIO_SCRIPT } from "@conduit-ai/fakes";
import { createRuntime } from "@conduit-ai/runtime";
import { createMcpRoutes, silentLogger } from "@conduit-ai/server-core";
import { expect, it } from "vitest";
import { forEachAdapter, sleep } from "../harness.js";

function lastPid(file: string): number {
  const pids = readFileSync(file, "utf8").trim().split("\n");
  return Number(pids.at(-1));
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

forEachAdapter("faults: an MCP server", ({ start }) => {
  it("killed mid-call: the call answers a clean error envelope; the server is reconnected and serves later calls", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "conduit-mcp-")), "pids");
    const runtime = createRuntime({
      env: {},
      logger: silentLogger,
      builtinTools: false,
      mcpServers: { slow: { command: process.execPath, args: [MCP_FIXTURE_STDIO_SCRIPT], env: { MCP_PID_FILE: pidFile } } },
      mcp: { initialDelayMs: 100, maxDelayMs: 400, requestTimeoutMs: 20_000 },
    });
    await runtime.ready();
    const server = await start({
      runtime,
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => adapter.registerRouteGroup(createMcpRoutes(runtime)),
    });
    const firstPid = lastPid(pidFile);

    const call = post(server.url("/api/mcp/servers/slow/tools/slow/execute"), { arguments: { ms: 10_000 } });
    await sleep(300);
    process.kill(firstPid, "SIGKILL");
    const response = await call;
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body.error).toMatchObject({ code: "MCP_SERVER_UNAVAILABLE", category: "EXTERNAL", details: { name: "slow" } });
    expect(body.error.retryAfter).toBeGreaterThan(0);
    expect(body.metadata.requestId).toBe(body.error.requestId);

    // Reconnected in the background (a new server process), and usable again.
    const deadline = Date.now() + 10_000;
    let status = "";
    while (status !== "connected" && Date.now() < deadline) {
      status = (await (await fetch(server.url("/api/mcp/servers/slow"))).json()).data.status;
      if (status !== "connected") await sleep(50);
    }
    expect(status).toBe("connected");
    expect(lastPid(pidFile)).not.toBe(firstPid);
    const later = await post(server.url("/api/mcp/servers/slow/tools/add/execute"), { arguments: { a: 2, b: 3 } });
    expect(later.status).toBe(200);
    expect(JSON.stringify((await later.json()).data.result)).toContain("5");
    await runtime.close();
  });
});
