/** What `pingRedis` needs: a client's `ping`, and a cluster's primaries when it is one. */
export interface PingableRedis {
  ping?(): Promise<unknown>;
  /** ioredis `Cluster#nodes("master")`: one client per primary. */
  nodes?(role: "master"): Array<{ ping(): Promise<unknown> }>;
}

/**
 * One health round trip: `PING` on one server or the sentinel-managed primary; on a cluster a
 * `PING` to every primary, so readiness says down while any slot has no reachable primary (a
 * failover in progress), not only when the node a plain `PING` happened to reach is down.
 *
 * @example
 * await storeCall("memory", () => pingRedis(client));
 */
export async function pingRedis(client: PingableRedis): Promise<void> {
  if (typeof client.nodes === "function") {
    const primaries = client.nodes("master");
    if (primaries.length === 0) throw new Error("no reachable cluster primary");
    await Promise.all(primaries.map((primary) => primary.ping()));
    return;
  }
  await client.ping?.();
}
