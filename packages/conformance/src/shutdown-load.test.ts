import { request as httpRequest } from "node:http";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FULL_SUITE, startConduit, suiteFrameworks } from "./fixtures/conduit-process.js";
import { answerByModelName, type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { sleep } from "./harness.js";

/**
 * SIGTERM to a real `conduit serve` process while it serves many requests and open SSE streams
 * through a provider (a local OpenAI-compatible server at a real pace): every started request
 * completes, every stream ends with a final event (`finish`, or `error` SERVER_SHUTTING_DOWN for
 * those the drain timeout cut), new connections are refused, and the process closes its runtime
 * and exits 0 within `gracefulShutdownTimeoutMs`.
 */
const REQUESTS = FULL_SUITE ? 500 : 40;
const STREAMS = FULL_SUITE ? 200 : 16;
const GRACE_MS = 10_000;
const DRAIN_MS = 2_000;
const frameworks = suiteFrameworks();

let provider: FakeOpenAI;
beforeAll(async () => {
  provider = await startFakeOpenAI({ answer: answerByModelName });
});
afterAll(() => provider.close());

interface StreamResult {
  events: string[];
  lastData: { type?: string; data?: { code?: string; reason?: string } };
  error?: string;
}

async function readStream(url: string, model: string): Promise<StreamResult> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "stream please" }, provider: "openai", model }),
    });
    const events: string[] = [];
    let last = "{}";
    const parser = createParser({
      onEvent: (event) => {
        events.push(event.event ?? "message");
        last = event.data;
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    return { events, lastData: JSON.parse(last) };
  } catch (error) {
    return { events: [], lastData: {}, error: String((error as Error).cause ?? error) };
  }
}

async function execute(url: string): Promise<{ status: number; content?: string; error?: string }> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "answer please" }, provider: "openai", model: "slow-10x100" }),
    });
    const body = (await response.json()) as { data?: { content?: string } };
    return { status: response.status, ...(body.data?.content ? { content: body.data.content } : {}) };
  } catch (error) {
    return { status: 0, error: String((error as Error).cause ?? error) };
  }
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const client = httpRequest({ host: "127.0.0.1", port, path: "/health", agent: false }, (response) => {
      response.resume();
      resolve(false);
    });
    client.on("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
    client.end();
  });
}

describe.each(frameworks)(`shutdown under load: ${REQUESTS} requests and ${STREAMS} SSE streams [%s]`, (framework) => {
  it("SIGTERM: every request completes, every stream gets a final event, exit 0 within the grace period", async () => {
    const conduit = await startConduit({
      framework,
      config: {
        server: {
          // On a loaded machine 700 calls take a while to set up: the request timeout is not under test here.
          timeout: 120_000,
          rateLimit: { maxRequests: 1_000_000, windowMs: 60_000 },
          logging: { enabled: false },
          shutdown: { drainTimeoutMs: DRAIN_MS, gracefulShutdownTimeoutMs: GRACE_MS, forceClose: true },
        },
      },
      env: { OPENAI_BASE_URL: provider.baseURL, OPENAI_API_KEY: "test-key", OPENAI_MODELS: "slow-10x100,slow-20x50,slow-6000x50" },
    });
    const receivedBefore = provider.requests.length;
    // Half the streams end within the drain (1 s), half would run 5 minutes: the drain timeout cuts those.
    const streams = Array.from({ length: STREAMS }, (_, index) =>
      readStream(conduit.url("/api/agent/stream"), index % 2 === 0 ? "slow-20x50" : "slow-6000x50"),
    );
    const requests = Array.from({ length: REQUESTS }, () => execute(conduit.url("/api/agent/execute")));
    // Everything is in flight once the provider has seen every call (a retried call counts twice).
    const deadline = Date.now() + 120_000;
    while (provider.requests.length - receivedBefore < STREAMS + REQUESTS && Date.now() < deadline) await sleep(20);
    expect(provider.requests.length - receivedBefore).toBeGreaterThanOrEqual(STREAMS + REQUESTS);

    const signalledAt = Date.now();
    conduit.child.kill("SIGTERM");
    while (!conduit.output().includes("SIGTERM received") && Date.now() - signalledAt < 5_000) await sleep(10);
    await sleep(100);
    expect(await connectionRefused(conduit.port)).toBe(true);
    const [requestResults, streamResults, code] = await Promise.all([Promise.all(requests), Promise.all(streams), conduit.exited]);
    const exitedAfterMs = Date.now() - signalledAt;

    expect(requestResults.filter((result) => result.status !== 200 || !result.content)).toEqual([]);
    expect(streamResults.filter((result) => result.error !== undefined)).toEqual([]);
    const finals = streamResults.map((result) => result.lastData.type);
    expect(finals.filter((type) => type !== "finish" && type !== "error")).toEqual([]);
    const shortStreams = streamResults.filter((_, index) => index % 2 === 0);
    const longStreams = streamResults.filter((_, index) => index % 2 === 1);
    expect(shortStreams.every((result) => result.lastData.type === "finish")).toBe(true);
    for (const result of longStreams) expect(result.lastData).toMatchObject({ type: "error", data: { code: "SERVER_SHUTTING_DOWN" } });
    expect(code).toBe(0);
    expect(exitedAfterMs).toBeLessThan(GRACE_MS);
    expect(conduit.output()).toContain("Conduit stopped (runtime closed)");
    console.log(
      `[${framework}] SIGTERM with ${REQUESTS} requests + ${STREAMS} streams in flight: ${requestResults.length} × 200, ` +
        `${shortStreams.length} streams finished, ${longStreams.length} ended with SERVER_SHUTTING_DOWN, exit 0 after ${exitedAfterMs} ms (grace ${GRACE_MS} ms, drain ${DRAIN_MS} ms)`,
    );
  }, 180_000);
});
