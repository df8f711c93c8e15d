#!/usr/bin/env node
// Three replicas behave as one: three `conduit serve` processes run from the image's root filesystem
// (as image-check.mjs runs them: read-only root, uid 10001, PID 1 of their own namespace) on one
// throwaway Redis and one fresh PostgreSQL database, behind Debian's haproxy on loopback — the
// stand-in for a Kubernetes Service: round robin, health checks on /ready, a new connection per
// request to the replicas, connection failures redispatched. A fake Anthropic API on loopback
// answers /v1/messages. With the config the `ha` overlay ships (deploy/kubernetes/overlays/ha/conduit.json):
//   1. rpm and a budget are exact across the three (virtual keys minted through /admin);
//   2. under steady load (JSON and streamed calls on four keys), a replica sent SIGTERM (a rolling
//      update) drains with zero failed requests and exits 0, and its restart rejoins;
//   3. a replica killed with SIGKILL fails only the requests it had in flight, haproxy stops
//      sending to it within its check window, and its restart rejoins;
//   4. a SIGKILL loses no money record: after the killed replica's leases expire and a sweep takes
//      its calls, no reservation is held and no call open; spend (Redis) equals the usage history
//      (PostgreSQL) per key; every completed call has its one row (settled for real at what upstream
//      reported, or — the kill between its answer and its settlement — at its reservation, marked
//      estimated), and no call has two.
// Prints the figures: requests, failures, the drain, the kill window, the calls swept.
//
// Usage: node --import tsx tools/scripts/three-replicas-check.mjs   (as root; podman, buildah,
// debootstrap, haproxy, redis-server; PostgreSQL at DATABASE_URL or 127.0.0.1:5432, user postgres)
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic } from "../../packages/fakes/src/index.ts";
import {
  IMAGE_TOOLS,
  ROOT,
  buildImage,
  ensureBase,
  freePort,
  inspectImage,
  logger,
  mountImage,
  requireTools,
  startFromRootfs,
  unmountImage,
} from "./image-check-tools.mjs";

const requireFromGovernance = createRequire(join(ROOT, "packages/governance/package.json"));
const pg = requireFromGovernance("pg");
const ADMIN_KEY = `admin-${randomBytes(24).toString("hex")}`;
const ACCOUNT_KEY = "sk-ant-three-replicas";
const MODEL = "claude-sonnet-4-5";
// $1,000 per million tokens of every kind: one token is $0.001, so costs are exact in pico-dollars.
const TOKEN_USD = 0.001;
/** haproxy's health check: every `CHECK_INTER_MS`, down after `CHECK_FALL` failures. */
const CHECK_INTER_MS = 1_000;
/**
 * The proxy routes' timeout: a call's lease lasts this plus 30 s, so the calls of the replica
 * killed with SIGKILL are swept (charged their reservation) that long after their admission.
 */
const PROXY_TIMEOUT_MS = 10_000;
const CHECK_FALL = 2;
const log = logger("three-replicas");
const failures = [];

function check(condition, what) {
  if (condition) log(`ok   ${what}`);
  else {
    failures.push(what);
    log(`FAIL ${what}`);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startRedis() {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  for (let attempt = 0; attempt < 100; attempt++) {
    if (spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" }).stdout?.trim() === "PONG")
      return { url: `redis://127.0.0.1:${port}`, child };
    await sleep(100);
  }
  throw new Error("the throwaway redis-server did not answer");
}

async function freshDatabase() {
  const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `conduit_replicas_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect().catch((error) => {
    throw new Error(`PostgreSQL at ${base} does not answer (${error.message}): start it or set DATABASE_URL`);
  });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

/** haproxy on loopback: round robin over the replicas, /ready checks, stats as CSV, the serving replica in a response header. */
async function startHaproxy(folder, replicaPorts) {
  const port = await freePort();
  const statsPort = await freePort();
  const config = `global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  retries 3
  option redispatch 1
  # A new connection to a replica per request, as a Kubernetes Service's clients open them: a
  # draining replica refuses new connections and the request goes to another one.
  option http-server-close
frontend gateway
  bind 127.0.0.1:${port}
  default_backend conduit
backend conduit
  balance roundrobin
  option httpchk GET /ready
  http-check expect status 200
  default-server inter ${CHECK_INTER_MS} fall ${CHECK_FALL} rise 2
  http-response set-header x-served-by %s
${replicaPorts.map((replicaPort, index) => `  server r${index + 1} 127.0.0.1:${replicaPort} check`).join("\n")}
listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
`;
  const file = join(folder, "haproxy.cfg");
  writeFileSync(file, config);
  const valid = spawnSync("haproxy", ["-c", "-f", file], { encoding: "utf8" });
  if (valid.status !== 0) throw new Error(`haproxy config invalid: ${valid.stderr}`);
  const child = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const statusOf = async () => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    const [header, ...rows] = csv.trim().split("\n");
    const columns = header.replace(/^# /, "").split(",");
    const status = {};
    for (const row of rows) {
      const cells = row.split(",");
      if (cells[0] === "conduit" && /^r\d$/.test(cells[1])) status[cells[1]] = cells[columns.indexOf("status")];
    }
    return status;
  };
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await statusOf().catch(() => undefined)) break;
    await sleep(100);
  }
  return { url: `http://127.0.0.1:${port}`, child, statusOf, stderr: () => stderr };
}

/** What upstream reported in the bytes it sent (a JSON answer or an SSE stream), priced at TOKEN_USD per token. */
function upstreamCost(sent) {
  const text = sent.toString();
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  if (text.startsWith("{")) Object.assign(usage, JSON.parse(text).usage);
  else
    for (const line of text.split("\n")) {
      if (!line.startsWith("data: ")) continue;
      const event = JSON.parse(line.slice(6));
      Object.assign(usage, event.type === "message_start" ? event.message?.usage : event.type === "message_delta" ? event.usage : {});
    }
  return (usage.input_tokens + usage.output_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens) * TOKEN_USD;
}

/** Calls under way; a call's `servedBy` is known once its answer's headers arrive (at once for a stream). */
const live = new Set();

/** One /v1/messages call through haproxy, tagged so the upstream exchange can be matched to it. */
async function call(base, key, tag, stream) {
  const started = Date.now();
  const outcome = { tag, key, stream, started, ended: 0, status: 0, servedBy: undefined, complete: false, error: undefined };
  live.add(outcome);
  try {
    const response = await fetch(`${base}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: MODEL, max_tokens: 16, stream, messages: [{ role: "user", content: `call ${tag}` }] }),
    });
    outcome.status = response.status;
    outcome.servedBy = response.headers.get("x-served-by") ?? undefined;
    const text = await response.text();
    outcome.complete = response.status === 200 && (stream ? text.includes("event: message_stop") : JSON.parse(text).type === "message");
    if (response.status !== 200) outcome.error = text.slice(0, 200);
  } catch (error) {
    outcome.error = `${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ""}`;
  }
  outcome.ended = Date.now();
  live.delete(outcome);
  return outcome;
}

/** Waits until a stream answered by `replica` is under way, so the signal lands on one. */
async function streamUnderWayOn(replica) {
  const deadline = Date.now() + 10_000;
  while (![...live].some((outcome) => outcome.stream && outcome.servedBy === replica)) {
    if (Date.now() > deadline) throw new Error(`no stream under way on ${replica} within 10 s`);
    await sleep(5);
  }
}

async function main() {
  const startedAt = Date.now();
  requireTools([
    ...IMAGE_TOOLS,
    { command: "haproxy", package: "haproxy" },
    { command: "redis-server", package: "redis-server" },
    { command: "redis-cli", package: "redis-tools" },
  ]);
  const base = ensureBase(log);
  const build = buildImage(base.tag, log);
  log(`image ready in ${build.seconds.toFixed(1)} s (${build.cachedSteps} steps from cache)`);
  const { config: imageConfig } = inspectImage();
  const rootfs = mountImage();
  const folder = mkdtempSync(join(tmpdir(), "conduit-three-replicas-"));
  // The config folder is mounted into the replicas: readable by uid 10001, as a mounted ConfigMap is.
  chmodSync(folder, 0o755);
  const redis = await startRedis();
  const database = await freshDatabase();
  const anthropic = await startFakeAnthropic();
  anthropic.credentials.add(ACCOUNT_KEY);
  // Streams long enough to be in flight when a replica is signalled.
  anthropic.eventGapMs = 15;
  anthropic.extraDeltas = 12;
  const replicas = [];
  let haproxy;
  try {
    const shipped = JSON.parse(readFileSync(join(ROOT, "deploy/kubernetes/overlays/ha/conduit.json"), "utf8"));
    writeFileSync(
      join(folder, "conduit.json"),
      JSON.stringify({
        ...shipped,
        server: { ...shipped.server, shutdown: { ...shipped.server?.shutdown, gracefulShutdownTimeoutMs: 20_000, drainTimeoutMs: 15_000 } },
        proxy: {
          enabled: true,
          store: "redis",
          upstream: { anthropic: anthropic.url },
          timeoutMs: PROXY_TIMEOUT_MS,
          clientKeys: [],
          accounts: [{ id: "claude-1", type: "api-key", apiKey: ACCOUNT_KEY, maxInFlight: 256 }],
        },
        admin: { keys: [ADMIN_KEY] },
        prices: { [MODEL]: { input: 1000, output: 1000, cacheRead: 1000, cacheWrite: 1000 } },
      }),
    );
    const env = { REDIS_URL: redis.url, DATABASE_URL: database.url };
    const ports = [await freePort(), await freePort(), await freePort()];
    const startReplica = (index) => {
      const args = ["serve", "--host", "127.0.0.1", "--port", String(ports[index]), "--config", "/etc/conduit/conduit.json"];
      const replica = startFromRootfs({ rootfs, config: imageConfig, args, env, configDirectory: folder });
      replicas[index] = replica;
      return replica.ready;
    };
    await Promise.all([0, 1, 2].map(startReplica));
    haproxy = await startHaproxy(folder, ports);
    const waitStatus = async (name, wanted, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = (await haproxy.statusOf())[name] ?? "";
        if (status.startsWith(wanted)) return Date.now();
        if (Date.now() > deadline) throw new Error(`haproxy never reported ${name} ${wanted} (last: ${status})`);
        await sleep(50);
      }
    };
    for (const name of ["r1", "r2", "r3"]) await waitStatus(name, "UP", 15_000);
    log(`three replicas UP behind haproxy at ${haproxy.url}`);

    const gateway = haproxy.url;
    const admin = async (path, init = {}) => {
      const response = await fetch(`${gateway}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      });
      return { status: response.status, body: await response.json() };
    };
    const mintKey = async (name, policy = {}) => {
      const created = await admin("/admin/keys", { method: "POST", body: JSON.stringify({ name, ...policy }) });
      if (created.status !== 201) throw new Error(`minting a key answered ${created.status}: ${JSON.stringify(created.body)}`);
      return { ...created.body.data, name };
    };
    const spentUsd = async (id) => (await admin(`/admin/keys/${id}`)).body.data.spend?.[0]?.spentUsd ?? 0;
    let tagCounter = 0;
    const nextTag = () => `t${++tagCounter}`;
    const costsByTag = () => {
      const costs = new Map();
      for (const exchange of anthropic.exchanges) {
        const tag = /call (t\d+)/.exec(exchange.body.toString())?.[1];
        if (tag) costs.set(tag, (costs.get(tag) ?? 0) + upstreamCost(exchange.sent));
      }
      return costs;
    };

    // 1. Exact across the three: rpm to the request, a budget to the pico-dollar.
    if (Date.now() % 60_000 > 45_000) await sleep(60_000 - (Date.now() % 60_000) + 200);
    const rpmKey = await mintKey("rpm", { limits: { rpm: 37 } });
    const rpmOutcomes = await Promise.all(Array.from({ length: 80 }, (_, index) => call(gateway, rpmKey.key, nextTag(), index % 2 === 0)));
    const rpmServed = rpmOutcomes.filter((outcome) => outcome.status === 200);
    const rpmReplicas = new Set(rpmServed.map((outcome) => outcome.servedBy));
    check(
      rpmServed.length === 37 && rpmOutcomes.filter((outcome) => outcome.status === 429).length === 43,
      `rpm 37 over 80 concurrent calls on ${rpmReplicas.size} replicas: ${rpmServed.length} served, ${rpmOutcomes.filter((outcome) => outcome.status === 429).length} refused`,
    );
    const budgetKey = await mintKey("budget", { budgets: [{ usd: 0.5, window: "total" }] });
    const budgetOutcomes = [];
    for (let round = 0; round < 5; round++)
      budgetOutcomes.push(...(await Promise.all(Array.from({ length: 12 }, () => call(gateway, budgetKey.key, nextTag(), true)))));
    const budgetServed = budgetOutcomes.filter((outcome) => outcome.complete);
    const budgetCosts = costsByTag();
    const budgetUpstream = budgetServed.reduce((sum, outcome) => sum + (budgetCosts.get(outcome.tag) ?? 0), 0);
    const largest = Math.max(...budgetServed.map((outcome) => budgetCosts.get(outcome.tag) ?? 0));
    const budgetSpent = await spentUsd(budgetKey.id);
    check(
      budgetOutcomes.every((outcome) => outcome.complete || outcome.status === 429) &&
        budgetOutcomes.some((outcome) => outcome.status === 429),
      `budget $0.50: ${budgetServed.length} served on ${new Set(budgetServed.map((outcome) => outcome.servedBy)).size} replicas, the rest refused 429`,
    );
    check(
      Math.abs(budgetSpent - budgetUpstream) < 1e-9 && budgetSpent <= 0.5 + largest,
      `budget spend $${budgetSpent.toFixed(6)} = Σ upstream usage × price $${budgetUpstream.toFixed(6)}, ≤ $0.50 + one call`,
    );

    // 2-3. Steady load while one replica is rolled (SIGTERM) and another killed (SIGKILL).
    // Budgets large enough never to refuse: their spend is what is compared with upstream.
    const loadKeys = await Promise.all(
      [0, 1, 2, 3].map((index) => mintKey(`steady-${index}`, { budgets: [{ usd: 1_000, window: "total" }] })),
    );
    const outcomes = [];
    let loading = true;
    const worker = async (workerIndex) => {
      for (let index = 0; loading; index++) {
        const key = loadKeys[(workerIndex + index) % loadKeys.length];
        outcomes.push(await call(gateway, key.key, nextTag(), index % 3 !== 2));
      }
    };
    const workers = Promise.all(Array.from({ length: 8 }, (_, index) => worker(index)));
    await sleep(3_000);

    await streamUnderWayOn("r1");
    const termAt = Date.now();
    replicas[0].signal("SIGTERM");
    const termExit = await replicas[0].exited;
    const drainMs = Date.now() - termAt;
    const drainOutput = replicas[0].output().stderr;
    check(termExit.code === 0, `r1 drained and exited ${termExit.code ?? termExit.signal} ${drainMs} ms after SIGTERM`);
    check(drainOutput.includes("SIGTERM received, draining"), "r1 announced its drain");
    await sleep(500);
    const r1RestartAt = Date.now();
    await startReplica(0);
    const r1RejoinedAt = await waitStatus("r1", "UP", 15_000);
    log(`r1 restarted; haproxy UP again ${r1RejoinedAt - r1RestartAt} ms after its start (${outcomes.length} calls finished so far)`);
    await sleep(3_000);

    await streamUnderWayOn("r2");
    const onR2AtKill = [...live].filter((outcome) => outcome.servedBy === "r2");
    const killAt = Date.now();
    const inFlightOnKill = () => outcomes.filter((outcome) => outcome.started < killAt).length;
    replicas[1].signal("SIGKILL");
    // Until the kernel has torn the process down its listening socket still takes connections:
    // a call that reaches it then is in flight at the kill too.
    let goneAt = Number.POSITIVE_INFINITY;
    void replicas[1].exited.then(() => (goneAt = Date.now()));
    const downAt = await waitStatus("r2", "DOWN", 10_000);
    const killWindowMs = downAt - killAt;
    await replicas[1].exited;
    await sleep(500);
    const r2RestartAt = Date.now();
    await startReplica(1);
    const r2RejoinedAt = await waitStatus("r2", "UP", 15_000);
    await sleep(3_000);
    loading = false;
    await workers;
    log(`load stopped: ${outcomes.length} calls (${inFlightOnKill()} started before the kill)`);

    const failed = outcomes.filter((outcome) => !outcome.complete);
    const beforeKill = failed.filter((outcome) => outcome.ended < killAt);
    const atKill = failed.filter((outcome) => outcome.started <= goneAt && outcome.ended >= killAt);
    const afterKill = failed.filter((outcome) => outcome.started > goneAt);
    const termWindow = outcomes.filter((outcome) => outcome.ended >= termAt && outcome.started <= termAt + drainMs);
    check(
      beforeKill.length === 0,
      `rolling SIGTERM: 0 failed of ${termWindow.length} calls during the drain (${outcomes.filter((outcome) => outcome.ended < killAt).length} before the kill)`,
    );
    const streamsDuringDrain = termWindow.filter((outcome) => outcome.stream && outcome.servedBy === "r1");
    check(
      streamsDuringDrain.length > 0 && streamsDuringDrain.every((outcome) => outcome.complete),
      `${streamsDuringDrain.length} streams served by r1 across its drain all finished`,
    );
    check(
      afterKill.length === 0,
      `SIGKILL: no call started after the process was gone (${goneAt - killAt} ms after the signal) failed (${afterKill.length})`,
    );
    // A call answering from r2 at the signal may still complete: the bytes r2 had written before it
    // died are in the kernel's socket buffer, which delivers them.
    const r2Completed = onR2AtKill.filter((outcome) => outcome.complete);
    check(
      failed.length === atKill.length && onR2AtKill.every((outcome) => failed.includes(outcome) || outcome.complete),
      `SIGKILL: ${failed.length} failed, every one in flight at the kill; the ${onR2AtKill.length} answering from r2 among them or delivered whole (${r2Completed.length}) (${failed
        .map((outcome) => String(outcome.error ?? outcome.status).replace(/\s+/g, " "))
        .slice(0, 3)
        .join("; ")})`,
    );
    check(
      killWindowMs <= CHECK_INTER_MS * (CHECK_FALL + 1),
      `haproxy marked r2 DOWN ${killWindowMs} ms after the kill (check window ${CHECK_FALL} × ${CHECK_INTER_MS} ms + one interval)`,
    );
    const servedAfterKillByR2 = outcomes.filter(
      (outcome) => outcome.started > killAt && outcome.ended < r2RestartAt && outcome.servedBy === "r2",
    );
    check(servedAfterKillByR2.length === 0, "nothing was answered by r2 between its kill and its restart");
    const byR1After = outcomes.filter((outcome) => outcome.started > r1RejoinedAt && outcome.servedBy === "r1" && outcome.complete).length;
    const byR2After = outcomes.filter((outcome) => outcome.started > r2RejoinedAt && outcome.servedBy === "r2" && outcome.complete).length;
    check(byR1After > 0 && byR2After > 0, `restarted replicas rejoined: r1 served ${byR1After}, r2 ${byR2After} calls after coming back`);

    // 4. Spend in Redis and history in PostgreSQL against what upstream reported: nothing lost,
    // nothing twice, spend and history agreeing, no reservation left — a SIGKILL included.
    const costs = costsByTag();
    // Calls r2 answered in full right around its kill: the kill may land between a call's last byte
    // and its settlement. Such a call is swept like a cut one — charged its reservation, its history
    // row marked estimated (packages/governance/README.md, "Durable history").
    const nearKill = (outcome) => outcome.complete && outcome.servedBy === "r2" && Math.abs(outcome.ended - killAt) <= 1_000;
    const redisCli = (...args) =>
      spawnSync("redis-cli", ["-u", redis.url, ...args], { encoding: "utf8" })
        .stdout.split("\n")
        .filter(Boolean);
    // Reservations (`res` in each key's counters, pico-dollars) go back to 0 when settled, or swept.
    const heldPicoNow = () => {
      let held = 0;
      for (const counterKey of redisCli("--scan", "--pattern", "*ctr:key:*")) held += Number(redisCli("hget", counterKey, "res")[0] ?? 0);
      return held;
    };
    const openCalls = () =>
      redisCli("--scan", "--pattern", "*:calls:due").reduce((sum, key) => sum + Number(redisCli("zcard", key)[0] ?? 0), 0);
    // The killed replica's calls wait out their lease (proxy.timeoutMs + 30 s), then a sweep (every 10 s) takes them.
    const sweepDeadline = killAt + PROXY_TIMEOUT_MS + 30_000 + 2 * 10_000 + 15_000;
    let sweptAt = 0;
    for (;;) {
      if (openCalls() === 0 && heldPicoNow() === 0) {
        sweptAt = Date.now();
        break;
      }
      if (Date.now() > sweepDeadline) break;
      await sleep(500);
    }
    check(
      sweptAt > 0,
      `no call left open and no budget reservation held in Redis ${sweptAt > 0 ? `${((sweptAt - killAt) / 1000).toFixed(1)} s after the kill (lease ${PROXY_TIMEOUT_MS / 1000} s + 30 s, then a sweep)` : `by ${((sweepDeadline - killAt) / 1000).toFixed(0)} s after the kill: ${openCalls()} open, $${(heldPicoNow() / 1e12).toFixed(6)} held`}`,
    );
    const spentByKey = new Map();
    for (const key of loadKeys) spentByKey.set(key.id, await spentUsd(key.id));

    // Stop all three gracefully (each writes what its outbox drain still holds), then read the history.
    for (const replica of replicas) replica.signal("SIGTERM");
    const exits = await Promise.all(replicas.map((replica) => replica.exited));
    check(
      exits.every((exit) => exit.code === 0),
      `all three drained and exited 0 at the end (${exits.map((exit) => exit.code ?? exit.signal).join(", ")})`,
    );
    const outboxLeft = redisCli("--scan", "--pattern", "*:outbox:usage").reduce(
      (sum, key) => sum + Number(redisCli("hlen", key)[0] ?? 0),
      0,
    );
    check(outboxLeft === 0, `every usage event left Redis for PostgreSQL (${outboxLeft} still in outboxes)`);
    const history = new pg.Client({ connectionString: database.url });
    await history.connect();
    const { rows } = await history.query(
      `SELECT key_id, count(*)::int AS rows, count(DISTINCT id)::int AS ids, count(*) FILTER (WHERE estimated)::int AS estimated,
         coalesce(sum(cost_usd), 0)::float8 AS cost, coalesce(sum(cost_usd) FILTER (WHERE NOT estimated), 0)::float8 AS real_cost
       FROM conduit_usage_events GROUP BY key_id`,
    );
    await history.end();
    let spendAgrees = true;
    let nothingLost = true;
    let nothingTwice = true;
    let realExact = true;
    let estimatedRows = 0;
    let estimatedUsd = 0;
    const report = [];
    for (const key of loadKeys) {
      const row = rows.find((item) => item.key_id === key.id) ?? { rows: 0, ids: 0, estimated: 0, cost: 0, real_cost: 0 };
      const mine = outcomes.filter((outcome) => outcome.key === key.key);
      const completed = mine.filter((outcome) => outcome.complete);
      const upstream = completed.reduce((sum, outcome) => sum + (costs.get(outcome.tag) ?? 0), 0);
      const answeredAtKill = completed.filter(nearKill);
      const spent = spentByKey.get(key.id);
      const settledForReal = row.rows - row.estimated;
      // Spend and history agree to the pico-dollar.
      spendAgrees &&= Math.abs(spent - row.cost) < 1e-9;
      // Every completed call has its row — real, or estimated when the kill beat its settlement —
      // and every row is one call: each id once, no more rows than calls made.
      nothingLost &&= row.rows >= completed.length && settledForReal >= completed.length - answeredAtKill.length;
      nothingTwice &&= row.rows === row.ids && row.rows <= mine.length;
      // The rows settled for real are upstream's figures: exactly, unless a call answered at the kill was swept.
      const sweptAnswered = completed.length - settledForReal;
      realExact &&=
        sweptAnswered === 0
          ? Math.abs(row.real_cost - upstream) < 1e-9
          : row.real_cost <= upstream + 1e-9 &&
            row.real_cost >= upstream - answeredAtKill.reduce((sum, outcome) => sum + (costs.get(outcome.tag) ?? 0), 0) - 1e-9;
      estimatedRows += row.estimated;
      estimatedUsd += row.cost - row.real_cost;
      report.push(
        `${key.name} spend $${spent.toFixed(6)} = history $${row.cost.toFixed(6)} (${row.rows} rows for ${completed.length} completed + ${mine.length - completed.length} cut calls; ${row.estimated} estimated, $${(row.cost - row.real_cost).toFixed(6)})`,
      );
    }
    check(spendAgrees, `spend in Redis = Σ cost in the PostgreSQL history, per key: ${report.join("; ")}`);
    check(
      nothingLost,
      "usage history: every completed call has its row (settled for real, or swept at its reservation when the kill came between answer and settlement)",
    );
    check(nothingTwice, "usage history: each event once, no more rows than calls");
    check(realExact, "the rows settled for real cost exactly what upstream reported for those calls");
    console.log(
      `\nthree-replicas: ${outcomes.length} calls under steady load (${outcomes.filter((outcome) => outcome.stream).length} streamed), ${failed.length} failed; ` +
        `drain after SIGTERM ${drainMs} ms with 0 failures; SIGKILL: ${atKill.length} in-flight calls failed, haproxy marked it DOWN after ${killWindowMs} ms; ` +
        `restarted replicas UP in haproxy ${r1RejoinedAt - r1RestartAt} ms / ${r2RejoinedAt - r2RestartAt} ms after their start; ` +
        `${estimatedRows} calls of the killed replica swept at their reservation ($${estimatedUsd.toFixed(6)}) ${((sweptAt - killAt) / 1000).toFixed(1)} s after the kill; whole check ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
  } finally {
    for (const replica of replicas) if (replica?.child.exitCode === null) replica.signal("SIGKILL");
    haproxy?.child.kill("SIGTERM");
    redis.child.kill("SIGTERM");
    await anthropic.close();
    await database.drop();
    unmountImage();
    rmSync(folder, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.error(`three-replicas: ${failures.length} failed:\n  ${failures.join("\n  ")}`);
    process.exit(1);
  }
  console.log("three-replicas: all checks passed");
  process.exit(0);
}

main().catch((error) => {
  console.error(`three-replicas check failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
