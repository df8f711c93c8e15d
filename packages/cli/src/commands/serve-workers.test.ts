import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { availableParallelism } from "node:os";
import { startIdentityServer, startFakeOpenAI } from "@conduit-ai/fakes";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { freshRequest, killLeftovers, portOf, runConduit, spawnConduit, writeConfig } from "../test-support/spawn-conduit.js";

const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const LIMIT = 14;

/** Two workers, one Redis (own key prefix), a rate limit of `limit` that also counts health, process details shown. */
/** Scrapes read /api/metrics with the metrics token (anonymous scrapes are refused unless metrics.public). */
const METRICS_TOKEN = "workers-metrics-token-0123456789";

function startTwoWorkers(
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = { REDIS_URL, REDIS_KEY_PREFIX: `test:cli-workers:${randomUUID()}:` },
  limit = 100_000,
) {
  const config = writeConfig({
    server: {
      logging: { enabled: false },
      health: { processDetails: "always" },
      rateLimit: { maxRequests: limit, windowMs: 600_000, skipPaths: [] },
      metrics: { token: METRICS_TOKEN },
    },
  });
  return spawnConduit(["serve", "--workers", "2", "--port", "0", "--host", "127.0.0.1", "--config", config, ...extraArgs], env);
}

const pidOf = async (port: number) =>
  (await freshRequest(port, "GET", "/api/health/detailed")).body?.data?.process?.pid as number | undefined;

afterEach(killLeftovers);

describe("conduit serve --workers", () => {
  it("two workers on one Redis share one rate limit, one conversation memory and one usage ledger", async () => {
    const conduit = startTwoWorkers([], undefined, LIMIT);
    const line = await conduit.ready;
    expect(line).toMatch(/^Conduit listening on http:\/\/127\.0\.0\.1:\d+ \(framework: hono\)$/);
    const port = portOf(line);

    // Memory: turns written through whichever worker takes each connection, read back through every one.
    const sessionId = `s-${randomUUID()}`;
    for (const text of ["one", "two", "three"]) {
      expect((await freshRequest(port, "POST", "/api/agent/generate", { input: { text }, sessionId })).status).toBe(200);
    }
    for (let read = 0; read < 2; read++) {
      const messages = await freshRequest(port, "GET", `/api/memory/sessions/${sessionId}/messages`);
      expect(messages.status).toBe(200);
      expect(JSON.stringify(messages.body.data)).toContain("three");
    }
    // Usage ledger: every worker counts the three generations, whichever worker made them.
    for (let read = 0; read < 2; read++) {
      const usage = await freshRequest(port, "POST", "/api/ai/analyze-usage", {
        timeframe: "1h",
        providers: [],
        includeOptimizations: true,
      });
      expect(usage.status).toBe(200);
      expect(usage.body.data.window.backend).toBe("redis");
      expect(usage.body.data.tokenUsage.total.calls).toBe(3);
    }

    // Rate limit: LIMIT requests in all (7 above), answered by both workers, then 429 from either.
    const pids = new Set<number>();
    let allowed = 7;
    for (let attempt = 0; attempt < LIMIT * 2; attempt++) {
      const response = await freshRequest(port, "GET", "/api/health/detailed");
      if (response.status === 429) break;
      expect(response.status).toBe(200);
      allowed++;
      pids.add(response.body.data.process.pid);
    }
    expect(allowed).toBe(LIMIT);
    expect(pids.size).toBe(2);
    expect((await freshRequest(port, "GET", "/api/tools")).status).toBe(429);
    expect((await freshRequest(port, "GET", "/api/tools")).status).toBe(429);

    conduit.child.kill("SIGTERM");
    expect(await conduit.exited).toBe(0);
    expect(conduit.output().stdout.match(/Conduit listening/g)).toHaveLength(1);
  }, 60_000);

  it("provider-auth sessions made through either worker are listed by both", async () => {
    const idp = await startIdentityServer({});
    try {
      const config = writeConfig({
        server: { logging: { enabled: false } },
        auth: { type: "jwt", jwksUrl: idp.jwksUrl, sessions: { store: "redis", maxSessionsPerUser: 10 } },
      });
      const conduit = spawnConduit(["serve", "--workers", "2", "--port", "0", "--host", "127.0.0.1", "--config", config], {
        REDIS_URL,
        REDIS_KEY_PREFIX: `test:cli-workers:${randomUUID()}:`,
      });
      const port = portOf(await conduit.ready);
      const user = `u-${randomUUID()}`;
      const bearer = async (sid: string) => ({ authorization: `Bearer ${await idp.sign({ sub: user, sid })}` });
      for (const sid of ["s1", "s2", "s3", "s4"])
        expect((await freshRequest(port, "GET", "/api/auth/me", undefined, await bearer(sid))).status).toBe(200);
      for (let read = 0; read < 2; read++) {
        const sessions = await freshRequest(port, "GET", "/api/auth/sessions", undefined, await bearer("s1"));
        expect(sessions.status).toBe(200);
        expect(sessions.body.data.total).toBe(4);
      }
      conduit.child.kill("SIGTERM");
      expect(await conduit.exited).toBe(0);
    } finally {
      await idp.close();
    }
  }, 60_000);

  it("replaces a worker that dies, and SIGTERM drains every worker and exits 0", async () => {
    const conduit = startTwoWorkers(["--framework", "express"]);
    const line = await conduit.ready;
    expect(line).toMatch(/\(framework: express\)$/);
    const port = portOf(line);
    const seen = new Set<number>();
    await vi.waitFor(
      async () => {
        seen.add((await pidOf(port)) as number);
        expect(seen.size).toBe(2);
      },
      { timeout: 20_000, interval: 50 },
    );
    const [victim, survivor] = [...seen] as [number, number];
    process.kill(victim, "SIGKILL");
    await vi.waitFor(
      () => expect(conduit.output().stderr).toMatch(new RegExp(`Worker ${victim} exited \\(SIGKILL\\); starting a replacement`)),
      { timeout: 20_000 },
    );
    // The replacement serves on the same port next to the survivor.
    const after = new Set<number>();
    await vi.waitFor(
      async () => {
        const pid = await pidOf(port);
        if (pid !== undefined) after.add(pid);
        expect(after.size).toBe(2);
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(after.has(victim)).toBe(false);
    expect(after.has(survivor)).toBe(true);

    conduit.child.kill("SIGTERM");
    expect(await conduit.exited).toBe(0);
    for (const pid of after) expect(() => process.kill(pid, 0)).toThrow();
    expect(conduit.output().stderr).toMatch(/SIGTERM received, draining 2 workers/);
  }, 90_000);

  it("refuses several workers without REDIS_URL or with sessions pinned to memory (exit 2, saying why) unless --allow-per-worker-state", async () => {
    const refused = await runConduitInProcess(["serve", "--workers", "2", "--port", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/--workers 2 needs REDIS_URL: .*rate limits, sessions, conversation memory.*--allow-per-worker-state/);

    const memorySessions = writeConfig({ auth: { type: "jwt", jwksUrl: "http://127.0.0.1:1/jwks", sessions: { store: "memory" } } });
    const pinned = await runConduitInProcess(["serve", "--workers", "2", "--port", "0", "--config", memorySessions], { REDIS_URL });
    expect(pinned.code).toBe(2);
    expect(pinned.stderr.trim()).toMatch(
      /^--workers 2: auth\.sessions\.store "memory" keeps sessions per worker; .*--allow-per-worker-state/,
    );

    const allowed = startTwoWorkers(["--allow-per-worker-state", "--framework", "fastify"], {});
    const port = portOf(await allowed.ready);
    expect((await freshRequest(port, "GET", "/api/health")).status).toBe(200);
    allowed.child.kill("SIGTERM");
    expect(await allowed.exited).toBe(0);
  }, 60_000);

  it("SIGTERM lets a stream in flight finish before the workers exit", async () => {
    // "Hello " at once, the rest once released: the stream is in flight when SIGTERM arrives.
    const upstream = await startFakeOpenAI({ answer: () => ({ text: ["Hello ", "from upstream"], hold: true }) });
    try {
      const conduit = spawnConduit(["serve", "--workers", "2", "--port", "0", "--host", "127.0.0.1"], {
        REDIS_URL,
        REDIS_KEY_PREFIX: `test:cli-workers:${randomUUID()}:`,
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: upstream.baseURL,
      });
      const port = portOf(await conduit.ready);
      let received = "";
      const finished = new Promise<number>((resolve, reject) => {
        const outgoing = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/api/agent/stream",
            agent: false,
            headers: { "content-type": "application/json" },
          },
          (response) => {
            response.setEncoding("utf8");
            response.on("data", (chunk) => (received += chunk));
            response.on("end", () => resolve(response.statusCode ?? 0));
          },
        );
        outgoing.on("error", reject);
        outgoing.end(JSON.stringify({ input: { text: "hi" }, provider: "openai" }));
      });
      // The provider has sent its first words and holds the rest: the stream is in flight.
      await vi.waitFor(() => expect(received).toContain("Hello "), { timeout: 20_000 });
      conduit.child.kill("SIGTERM");
      await vi.waitFor(() => expect(conduit.output().stderr).toMatch(/SIGTERM received, draining…[\s\S]*SIGTERM received, draining…/), {
        timeout: 20_000,
      });
      expect(conduit.child.exitCode).toBeNull();
      upstream.release();
      expect(await finished).toBe(200);
      expect(received).toContain("from upstream");
      expect(received).toContain("event: finish");
      expect(await conduit.exited).toBe(0);
    } finally {
      await upstream.close();
    }
  }, 60_000);

  it("one /api/metrics scrape reports the requests of every worker", async () => {
    const conduit = startTwoWorkers();
    const port = portOf(await conduit.ready);
    for (let index = 0; index < 6; index++) expect((await freshRequest(port, "GET", "/api/tools")).status).toBe(200);
    // Every worker guards the aggregate like its own route.
    expect((await freshRequest(port, "GET", "/api/metrics")).status).toBe(401);
    expect((await freshRequest(port, "GET", "/api/metrics")).status).toBe(401);
    const authorization = `Bearer ${METRICS_TOKEN}`;
    for (let scrape = 0; scrape < 2; scrape++) {
      const text = await new Promise<string>((resolve, reject) => {
        request({ host: "127.0.0.1", port, path: "/api/metrics", agent: false, headers: { authorization } }, (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk) => (body += chunk));
          response.on("end", () => resolve(body));
        })
          .on("error", reject)
          .end();
      });
      expect(text).toContain('conduit_http_requests_total{method="GET",route="/api/tools",status="200"} 6');
    }
    const json = await freshRequest(port, "GET", "/api/metrics", undefined, { accept: "application/json", authorization });
    const requests = (json.body as Array<{ name: string; values: Array<{ value: number; labels: Record<string, string> }> }>).find(
      (metric) => metric.name === "conduit_http_requests_total",
    );
    expect(requests?.values.find((value) => value.labels.route === "/api/tools")?.value).toBe(6);
    conduit.child.kill("SIGTERM");
    expect(await conduit.exited).toBe(0);
  }, 60_000);

  it("--workers auto runs one worker per CPU", async () => {
    const conduit = spawnConduit(["serve", "--workers", "auto", "--port", "0", "--host", "127.0.0.1"], {
      REDIS_URL,
      REDIS_KEY_PREFIX: `test:cli-workers:${randomUUID()}:`,
    });
    const port = portOf(await conduit.ready);
    expect((await freshRequest(port, "GET", "/api/health")).status).toBe(200);
    conduit.child.kill("SIGTERM");
    expect(await conduit.exited).toBe(0);
    expect(conduit.output().stderr).toContain(`SIGTERM received, draining ${availableParallelism()} workers`);
  }, 60_000);

  it("reports a bad --workers value or a bad config once, with exit 2", async () => {
    for (const value of ["0", "two", "-1"]) {
      const result = await runConduitInProcess(["serve", "--workers", value]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--workers/);
    }
    // An auth error only the assembly sees: the first worker reports it, the others never start.
    const config = writeConfig({ auth: { type: "okta" } });
    const result = await runConduit(["serve", "--workers", "2", "--port", "0", "--config", config], {
      REDIS_URL,
      REDIS_KEY_PREFIX: `test:cli-workers:${randomUUID()}:`,
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([expect.stringMatching(/auth.type: expected one of/)]);
  }, 60_000);
});
