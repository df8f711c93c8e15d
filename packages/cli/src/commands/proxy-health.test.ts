import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { killLeftovers, portOf, spawnConduit, writeConfig } from "../test-support/spawn-conduit.js";

// `conduit proxy` and `conduit serve` answer the same probes, so one set of manifests (and one
// load balancer health check) fits both commands: the built-in `/health` and `/ready`, and the
// health group under `/api/health`.
const CLIENT_KEY = "proxy-health-client-key-0123456789";
const PROXY_READY = "Conduit proxy listening on ";
let anthropic: FakeAnthropic;

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  anthropic.credentials.add("sk-ant-health");
});
afterAll(async () => {
  await anthropic?.close();
});
afterEach(killLeftovers);

/** The proxy section; client keys only when governance (`keys`) does not admit the callers. */
function proxyConfig(extra: Record<string, unknown> = {}) {
  return writeConfig({
    proxy: {
      enabled: true,
      upstream: { anthropic: anthropic.url },
      ...(extra.keys === undefined ? { clientKeys: [CLIENT_KEY] } : {}),
      accounts: [{ id: "claude-1", type: "api-key", apiKey: "sk-ant-health" }],
    },
    ...extra,
  });
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** GET over `agent` (a kept-alive socket stays usable once the server drains and stops accepting). */
function get(port: number, path: string, agent?: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port, path, ...(agent ? { agent } : {}) }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

describe("conduit proxy health probes", { timeout: 60_000 }, () => {
  it("answers /api/health, /live, /ready and /detailed as conduit serve does, beside /health and /ready; ready is 503 once draining", async () => {
    const run = spawnConduit(["proxy", "--config", proxyConfig(), "--port", "0", "--host", "127.0.0.1"], { HOST: "" }, PROXY_READY);
    const port = portOf(await run.ready);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const health = await get(port, "/api/health", agent);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body).data).toMatchObject({ status: "ok" });
    expect(JSON.parse((await get(port, "/api/health/live", agent)).body).data).toMatchObject({ status: "alive" });
    const ready = await get(port, "/api/health/ready", agent);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body).data).toMatchObject({ status: "ready", state: "running" });
    const detailed = await get(port, "/api/health/detailed", agent);
    expect(detailed.status).toBe(200);
    expect(JSON.parse(detailed.body).data).toMatchObject({ status: "ok", state: "running" });
    expect((await get(port, "/health", agent)).status).toBe(200);
    expect((await get(port, "/ready", agent)).status).toBe(200);

    // A stream in flight keeps the process draining while readiness is asked on the kept-alive socket.
    anthropic.eventGapMs = 200;
    anthropic.extraDeltas = 10;
    const stream = fetch(`http://127.0.0.1:${port}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 16, stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    const answer = await stream;
    expect(answer.status).toBe(200);
    run.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const drainingReady = await get(port, "/api/health/ready", agent);
    expect(drainingReady.status).toBe(503);
    expect(await answer.text()).toContain("message_stop");
    expect(await run.exited).toBe(0);
    agent.destroy();
    anthropic.eventGapMs = 0;
    anthropic.extraDeltas = 0;
  });

  it("readiness is 503 on both probes while its Redis cannot answer; liveness stays 200", async () => {
    const config = proxyConfig({ keys: { store: "redis" }, admin: { keys: ["proxy-health-admin-key-0123456789abcdef"] } });
    const run = spawnConduit(
      ["proxy", "--config", config, "--port", "0", "--host", "127.0.0.1"],
      { HOST: "", REDIS_URL: `redis://127.0.0.1:${await closedPort()}` },
      PROXY_READY,
    );
    const port = portOf(await run.ready);
    const ready = await get(port, "/api/health/ready");
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body).error.details.dependencies.redis).toMatchObject({ status: "down", required: true });
    expect((await get(port, "/ready")).status).toBe(503);
    expect((await get(port, "/api/health/live")).status).toBe(200);
    expect((await get(port, "/health")).status).toBe(200);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });
});
