import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FULL_SUITE, startConduit, suiteFrameworks } from "../fixtures/conduit-process.js";
import { type ThrowawayRedis, startThrowawayRedis } from "../fixtures/throwaway-redis.js";
import { sleep } from "../harness.js";

/**
 * Redis killed and restarted under load, against a real `conduit serve` process whose every
 * shared state lives in Redis (`REDIS_URL`): the rate limiter fails closed (default) or open as
 * configured, conversation memory degrades, nothing crashes, and everything recovers by itself.
 */
interface Outcome {
  route: string;
  phase: "before" | "outage" | "after";
  status: number;
  code?: string;
  retryAfter?: string | null;
  error?: string;
}

let redis: ThrowawayRedis;
beforeAll(async () => {
  redis = await startThrowawayRedis();
});
afterAll(() => redis.stop());

const frameworks = suiteFrameworks();
const workers = FULL_SUITE ? 32 : 6;

async function request(url: string, route: string, phase: Outcome["phase"], init?: RequestInit): Promise<Outcome> {
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    const code = response.status === 200 ? undefined : (JSON.parse(text) as { error?: { code?: string } }).error?.code;
    return { route, phase, status: response.status, ...(code ? { code } : {}), retryAfter: response.headers.get("retry-after") };
  } catch (error) {
    return { route, phase, status: 0, error: String((error as Error).cause ?? error) };
  }
}

describe.each(frameworks)("faults: Redis killed and restarted under load [%s]", (framework) => {
  it.each([
    { mode: "fail closed (default)", failOpen: false },
    { mode: "fail open", failOpen: true },
  ])(
    "rate limiter $mode, memory degrades, no crash, automatic recovery",
    async ({ failOpen }) => {
      await redis.restart();
      const conduit = await startConduit({
        framework,
        config: { server: { rateLimit: { maxRequests: 1_000_000, windowMs: 60_000, failOpen }, logging: { enabled: false } } },
        env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `test:${randomUUID()}:` },
      });
      const outcomes: Outcome[] = [];
      let phase: Outcome["phase"] = "before";
      let running = true;
      const worker = async (index: number) => {
        for (let turn = 0; running; turn++) {
          const started = phase;
          const outcome =
            turn % 2 === 0
              ? await request(conduit.url("/api/agent/execute"), "execute", started, {
                  method: "POST",
                  headers: { "content-type": "application/json" },
                  body: JSON.stringify({ input: { text: `turn ${turn}` }, sessionId: `worker-${index}` }),
                })
              : await request(conduit.url("/api/tools"), "tools", started);
          // A request that spans a kill or a restart belongs to the outage.
          if (phase !== started) outcome.phase = "outage";
          outcomes.push(outcome);
        }
      };
      const load = Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
      await sleep(500);

      phase = "outage";
      await redis.kill();
      await sleep(1_500);
      const probes = await Promise.all([
        request(conduit.url("/api/memory/sessions"), "memory", "outage"),
        request(conduit.url("/ready"), "ready", "outage"),
      ]);
      expect(conduit.child.exitCode).toBeNull();

      await redis.restart();
      const recoveredBy = Date.now() + 10_000;
      let recovered = false;
      while (!recovered && Date.now() < recoveredBy) {
        const [tools, ready, memory] = await Promise.all([
          fetch(conduit.url("/api/tools")),
          fetch(conduit.url("/ready")),
          fetch(conduit.url("/api/memory/sessions")),
        ]);
        recovered =
          tools.status === 200 && tools.headers.get("x-ratelimit-limit") === "1000000" && ready.status === 200 && memory.status === 200;
        if (!recovered) await sleep(50);
      }
      expect(recovered).toBe(true);
      phase = "after";
      await sleep(500);
      running = false;
      await load;

      // Never a crash, a connection error, a 500 or a 408: only answers and 503 STORE_UNAVAILABLE with Retry-After.
      expect(conduit.child.exitCode).toBeNull();
      expect(outcomes.filter((outcome) => outcome.status === 0)).toEqual([]);
      expect(outcomes.filter((outcome) => outcome.status !== 200 && outcome.status !== 503)).toEqual([]);
      for (const outcome of outcomes.filter((item) => item.status === 503))
        expect(outcome).toMatchObject({ code: "STORE_UNAVAILABLE", retryAfter: "2" });
      expect(outcomes.filter((outcome) => outcome.phase === "before" && outcome.status !== 200)).toEqual([]);
      expect(outcomes.filter((outcome) => outcome.phase === "after" && outcome.status !== 200)).toEqual([]);
      const during = outcomes.filter((outcome) => outcome.phase === "outage");
      expect(during.length).toBeGreaterThan(0);
      if (failOpen) {
        // The limiter lets everything through; generation runs without memory.
        expect(during.filter((outcome) => outcome.status !== 200)).toEqual([]);
      } else {
        expect(during.filter((outcome) => outcome.status === 503).length).toBeGreaterThan(0);
      }
      expect(probes[0]).toMatchObject({ status: 503, code: "STORE_UNAVAILABLE" });
      expect(probes[1]?.status).toBe(503);
      console.log(
        `[${framework}, failOpen=${failOpen}] ${outcomes.length} requests: before ${outcomes.filter((o) => o.phase === "before").length} ok, outage ${during.length} (${during.filter((o) => o.status === 503).length} × 503), after ${outcomes.filter((o) => o.phase === "after").length} ok`,
      );

      conduit.child.kill("SIGTERM");
      expect(await conduit.exited).toBe(0);
    },
    120_000,
  );
});
