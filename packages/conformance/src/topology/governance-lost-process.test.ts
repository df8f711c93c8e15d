import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { type Governance, createGovernance } from "@conduit-ai/governance";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "../harness.js";

/**
 * A process is SIGKILLed with calls of a virtual key in its hands — admitted, some answered by
 * upstream, none settled; or settled, their usage events not yet written to PostgreSQL. Another
 * process (the server under test, on the same Redis and PostgreSQL) must make the money records
 * whole: once the calls' leases expire its sweep charges each unsettled call its reservation
 * exactly once, the history holds exactly one row per call (estimated ones marked), and the
 * events the dead process settled reach the history once. Read as an operator reads them:
 * `GET /admin/keys/{id}` and `GET /admin/usage`.
 */
const MODEL = "claude-sonnet-4-5";
const ADMIN_KEY = `lost-process-admin-${"0".repeat(24)}`;
const asAdmin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const CHILD_SCRIPT = fileURLToPath(new URL("../fixtures/governance-child.ts", import.meta.url));

function psql(sql: string): void {
  const result = spawnSync("psql", [POSTGRES_URL, "-v", "ON_ERROR_STOP=1", "-c", sql], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`psql failed (${result.error?.message ?? result.stderr}): install postgresql-client`);
}

interface ChildReady {
  admitted: number;
  answered: number;
  costs: number[];
}

/** Starts `fixtures/governance-child.ts`; resolves once it is ready to be killed. */
function startChild(
  scenario: "unsettled" | "settled",
  count: number,
  env: Record<string, string>,
): Promise<{ process: ChildProcess; ready: ChildReady }> {
  const childProcess = spawn(
    process.execPath,
    ["--conditions=@conduit-ai/source", "--import", "tsx", CHILD_SCRIPT, scenario, String(count)],
    {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  childProcess.stderr?.on("data", (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    let line = "";
    childProcess.stdout?.on("data", (chunk) => {
      line += chunk;
      const match = /\{"ready":(\{.*\})\}/.exec(line);
      if (match) resolve({ process: childProcess, ready: JSON.parse(match[1] as string) as ChildReady });
    });
    childProcess.once("exit", () => reject(new Error(`governance child exited early: ${output}`)));
  });
}

async function kill(childProcess: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => childProcess.once("exit", resolve));
  childProcess.kill("SIGKILL");
  await exited;
}

forEachAdapter("governance when a process is SIGKILLed mid-call", ({ start }) => {
  const database = `conduit_lost_${randomBytes(5).toString("hex")}`;
  const namespace = `test:lost:${randomBytes(6).toString("hex")}`;
  let databaseUrl: string;
  let redis: Redis;
  let upstream: FakeAnthropic;
  let survivor: Governance | undefined;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    psql(`CREATE DATABASE ${database}`);
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    redis = new Redis(REDIS_URL);
    upstream = await startFakeAnthropic();
    upstream.credentials.add("sk-ant-governance-child");
  });

  afterEach(async () => {
    for (const each of children.splice(0)) if (each.exitCode === null && each.signalCode === null) await kill(each);
    await survivor?.close();
    survivor = undefined;
  });

  afterAll(async () => {
    const keys = await redis.keys(`*${namespace}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await upstream.close();
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  /** The surviving process: governance on the same Redis and PostgreSQL, sweeping every 200 ms, behind the adapter. */
  async function serve(): Promise<RunningServer> {
    survivor = await createGovernance({
      keys: { store: "redis" },
      admin: { keys: [ADMIN_KEY] },
      redis,
      namespace,
      databaseUrl,
      prices: { [MODEL]: { input: 1000, output: 1000, cacheRead: 1000, cacheWrite: 1000 } },
      sweepIntervalMs: 200,
      env: {},
    });
    const governance = survivor;
    return start({ config: { rateLimit: { enabled: false } }, setup: (adapter) => governance.install(adapter) });
  }

  async function mint(server: RunningServer): Promise<{ id: string; key: string }> {
    const response = await fetch(server.url("/admin/keys"), {
      method: "POST",
      headers: asAdmin,
      body: JSON.stringify({ name: "lost", budgets: [{ usd: 10, window: "total" }] }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { data: { id: string; key: string } }).data;
  }

  async function spentUsd(server: RunningServer, id: string): Promise<number> {
    const response = await fetch(server.url(`/admin/keys/${id}`), { headers: asAdmin });
    const body = (await response.json()) as { data: { spend: Array<{ window: string; spentUsd: number }> } };
    return body.data.spend.find((row) => row.window === "total")?.spentUsd ?? 0;
  }

  async function historyOf(server: RunningServer, id: string) {
    const response = await fetch(server.url("/admin/usage?groupBy=key"), { headers: asAdmin });
    const rows = (
      (await response.json()) as { data: Array<{ group: string; requests: number; estimatedRequests: number; costUsd: number }> }
    ).data;
    const row = rows.find((each) => each.group === id);
    return row ? { requests: row.requests, estimatedRequests: row.estimatedRequests, costUsd: Number(row.costUsd.toFixed(9)) } : undefined;
  }

  const reservedPico = (id: string) => redis.hget(`{${namespace}:k:${id}}:ctr:key:${id}:total`, "res").then(Number);

  it("calls admitted (half of them answered by upstream) but never settled are charged their reservation once, after their lease, with one estimated row each", async () => {
    const server = await serve();
    const { id, key } = await mint(server);
    const { process: lost, ready } = await startChild("unsettled", 6, {
      REDIS_URL,
      DATABASE_URL: databaseUrl,
      GOVERNANCE_NAMESPACE: namespace,
      CHILD_CREDENTIAL: key,
      UPSTREAM_URL: upstream.url,
    });
    children.push(lost);
    expect(ready).toMatchObject({ admitted: 6, answered: 3 });
    // Reserved: (20 + i) input + 16 output tokens at $0.001 each, for i = 0..5.
    const reservation = (6 * 36 + 15) * 0.001;
    expect(await reservedPico(id)).toBe(Math.round(reservation * 1e12));
    await kill(lost);

    // The leases (300 ms + 300 ms) expire; the survivor's sweep settles each call at its reservation.
    await expect.poll(() => spentUsd(server, id), { timeout: 10_000, interval: 100 }).toBeCloseTo(reservation, 9);
    await expect
      .poll(() => historyOf(server, id), { timeout: 10_000, interval: 100 })
      .toEqual({ requests: 6, estimatedRequests: 6, costUsd: Number(reservation.toFixed(9)) });
    expect(await reservedPico(id)).toBe(0);
    // Once: more sweeps, also concurrent ones, change nothing.
    await Promise.all([survivor?.sweeper?.sweep(), survivor?.sweeper?.sweep(), new Promise((resolve) => setTimeout(resolve, 600))]);
    expect(await spentUsd(server, id)).toBeCloseTo(reservation, 9);
    expect(await historyOf(server, id)).toEqual({ requests: 6, estimatedRequests: 6, costUsd: Number(reservation.toFixed(9)) });
  }, 40_000);

  it("usage events of calls a process settled are written once by another process when it is killed before its own write", async () => {
    const server = await serve();
    const { id, key } = await mint(server);
    const { process: lost, ready } = await startChild("settled", 5, {
      REDIS_URL,
      DATABASE_URL: databaseUrl,
      GOVERNANCE_NAMESPACE: namespace,
      CHILD_CREDENTIAL: key,
      UPSTREAM_URL: upstream.url,
    });
    children.push(lost);
    await kill(lost);
    const cost = ready.costs.reduce((sum, each) => sum + each, 0);
    expect(ready.costs).toHaveLength(5);
    expect(await spentUsd(server, id)).toBeCloseTo(cost, 9);
    await expect
      .poll(() => historyOf(server, id), { timeout: 10_000, interval: 100 })
      .toEqual({ requests: 5, estimatedRequests: 0, costUsd: Number(cost.toFixed(9)) });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await historyOf(server, id)).toEqual({ requests: 5, estimatedRequests: 0, costUsd: Number(cost.toFixed(9)) });
    expect(await spentUsd(server, id)).toBeCloseTo(cost, 9);
    expect(await reservedPico(id)).toBe(0);
  }, 40_000);
});
