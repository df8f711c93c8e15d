import { randomUUID } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDIS_TOPOLOGIES } from "../fixtures/redis-topology.js";
import { type TopologyServer, startTopologyServer } from "../fixtures/topology-processes.js";

/**
 * The three rate-limit algorithms stay exact across two server processes when Redis is a
 * cluster (3 primaries + 3 replicas) or a sentinel-managed primary: 120 concurrent requests
 * split over both processes, a limit of 30 on one shared key → exactly 30 pass, 90 get 429.
 */
const LIMIT = 30;
const TOTAL = 120;

function get(url: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", reject);
    request.end();
  });
}

describe.each(REDIS_TOPOLOGIES)("rate limits across two processes on Redis $name", ({ start }) => {
  let stopTopology: () => Promise<void> = async () => undefined;
  let servers: TopologyServer[] = [];
  beforeAll(async () => {
    const topology = await start();
    stopTopology = topology.stop;
    const env = { ...topology.env, REDIS_KEY_PREFIX: `test:${randomUUID()}:` };
    servers = await Promise.all([startTopologyServer("hono", env, { limit: LIMIT }), startTopologyServer("hono", env, { limit: LIMIT })]);
    // First requests per process, on keys of their own: lazily loaded modules and Redis's script
    // cache are warm before the counted burst (a cold start on a loaded machine can stall past the 1 s store deadline).
    for (const [index, server] of servers.entries())
      for (const path of ["/api/load", "/api/fixed", "/api/sliding", "/api/bucket"]) {
        const response = await fetch(server.url(path), { headers: { "x-limit-key": `warm-${index}` } });
        expect(response.status).toBe(200);
      }
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await stopTopology();
  }, 30_000);

  it.each(["fixed", "sliding", "bucket"])("%s: exactly the limit passes, together", async (algorithm) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const statuses = await Promise.all(
      Array.from({ length: TOTAL }, (_, index) => get((servers[index % 2] as TopologyServer).url(`/api/${algorithm}`), agent)),
    );
    agent.destroy();
    expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(TOTAL - LIMIT);
  });
});
