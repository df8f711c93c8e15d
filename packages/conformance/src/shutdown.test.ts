import { spawn } from "node:child_process";
import { Agent } from "node:http";
import { fileURLToPath } from "node:url";
import type { RouteDefinition } from "@conduit-ai/server-core";
import { createParser } from "eventsource-parser";
import { expect, it, vi } from "vitest";
import { forEachAdapter, rawRequest, sleep } from "./harness.js";

/** A stream that never ends on its own: one `data` event every 20 ms until its signal aborts. */
function endlessStream(seen: { reasons: unknown[] }): RouteDefinition {
  return {
    method: "GET",
    path: "/stream/endless",
    streaming: true,
    handler: (ctx) => {
      ctx.abortSignal.addEventListener("abort", () => seen.reasons.push(ctx.abortSignal.reason));
      return (async function* () {
        for (let index = 0; !ctx.abortSignal.aborted; index++) {
          yield { type: "data", timestamp: Date.now(), data: { index } };
          await sleep(20);
        }
      })();
    },
  };
}

function lastSseEvent(text: string): { event?: string; data: { type: string; data: Record<string, unknown> } } {
  const events: Array<{ event?: string; data: string }> = [];
  createParser({ onEvent: (event) => events.push(event) }).feed(text);
  const last = events.at(-1);
  return { event: last?.event, data: JSON.parse(last?.data ?? "null") };
}

forEachAdapter("shutdown", ({ start, framework }) => {
  it("answers a request sent on an idle keep-alive socket during the drain with 503 + Connection: close, then closes it", async () => {
    // The slow request is released by the test, not by a timer, so a loaded machine cannot
    // finish the drain before the idle socket is used.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const handlerReached = new Promise<void>((resolve) => (reached = resolve));
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/slow",
          handler: async () => {
            reached();
            await released;
            return { finished: true };
          },
        }),
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await rawRequest(server.port, { path: "/health", agent })).status).toBe(200);
    const inFlight = fetch(server.url("/api/slow"));
    await handlerReached;
    const stopping = server.adapter.stop();
    await vi.waitFor(() => expect(server.adapter.getLifecycleState()).toBe("draining"), { timeout: 5_000, interval: 5 });
    const refused = await rawRequest(server.port, { path: "/api/anything", agent });
    expect(refused.status).toBe(503);
    expect(refused.headers.connection).toBe("close");
    expect(JSON.parse(refused.body).error).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    release();
    expect((await inFlight).status).toBe(200);
    await stopping;
    expect(server.adapter.getActiveConnectionCount()).toBe(0);
    agent.destroy();
  });

  it("streams still running when the drain timeout ends get a final SERVER_SHUTTING_DOWN error event (SSE and NDJSON)", async () => {
    const seen = { reasons: [] as unknown[] };
    const server = await start({
      config: { shutdown: { drainTimeoutMs: 200, gracefulShutdownTimeoutMs: 5_000, forceClose: true } },
      setup: (adapter) => adapter.registerRoute(endlessStream(seen)),
    });
    const sse = await fetch(server.url("/api/stream/endless"));
    const ndjson = await fetch(server.url("/api/stream/endless?format=ndjson"));
    const texts = Promise.all([sse.text(), ndjson.text()]);
    await sleep(100);
    const began = Date.now();
    await server.adapter.stop();
    expect(Date.now() - began).toBeLessThan(2_000);
    const [sseText, ndjsonText] = await texts;

    const last = lastSseEvent(sseText);
    expect(last.event).toBe("error");
    expect(last.data).toMatchObject({ type: "error", data: { code: "SERVER_SHUTTING_DOWN", reason: "server-shutdown", retryable: true } });
    const lines = ndjsonText
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.at(-1)).toMatchObject({ type: "error", data: { code: "SERVER_SHUTTING_DOWN" } });
    // Each handler learned why it was stopped (so it can cancel upstream work).
    expect(seen.reasons).toHaveLength(2);
    for (const reason of seen.reasons) expect(reason).toMatchObject({ code: "SERVER_SHUTTING_DOWN" });
  });

  it("a stream that ends within the drain finishes normally", async () => {
    const server = await start({
      config: { shutdown: { drainTimeoutMs: 2_000, gracefulShutdownTimeoutMs: 5_000 } },
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/stream/short",
          handler: () =>
            (async function* () {
              for (let index = 0; index < 5; index++) {
                yield { type: "data", timestamp: Date.now(), data: { index } };
                await sleep(40);
              }
            })(),
        }),
    });
    const response = await fetch(server.url("/api/stream/short"));
    const text = response.text();
    await sleep(30);
    await server.adapter.stop();
    expect(lastSseEvent(await text).data).toMatchObject({ type: "finish", data: { reason: "stop" } });
  });

  it(`a request stuck in flight does not let the process exit half-stopped: stop() completes [${framework}]`, async () => {
    const fixture = fileURLToPath(new URL("./fixtures/stuck-request-server.ts", import.meta.url));
    const child = spawn(process.execPath, ["--conditions=@conduit-ai/source", "--import", "tsx", fixture, framework], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    for (let waited = 0; !stdout.includes("stuck"); waited += 50) {
      if (waited > 15_000) throw new Error(`fixture did not get stuck: ${stdout}`);
      await sleep(50);
    }
    child.kill("SIGTERM");
    const began = Date.now();
    expect(await exited).toBe(0);
    expect(Date.now() - began).toBeLessThan(3_000);
    expect(stdout).toContain("stopped state=stopped");
    expect(stdout).toContain("runtime closed");
  });
});
