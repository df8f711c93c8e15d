/** One cluster node's client, as ioredis' `Cluster#nodes()` lists it. */
interface ClusterNodeClient {
  ping(): Promise<unknown>;
  options?: { host?: string; port?: number };
}

/** What `pingRedis` needs: a client's `ping`, and a cluster's primaries and slot map when it is one. */
export interface PingableRedis {
  ping?(): Promise<unknown>;
  /** ioredis `Cluster#nodes("master")`: one client per primary the client is connected to. */
  nodes?(role: "master"): ClusterNodeClient[];
  /** ioredis `Cluster#slots`: for each of the 16384 slots, `host:port` of its primary first. */
  slots?: ReadonlyArray<ReadonlyArray<string> | undefined>;
}

const CLUSTER_SLOTS = 16_384;

const keyOf = (node: ClusterNodeClient) => `${node.options?.host ?? "127.0.0.1"}:${node.options?.port ?? 6379}`;

/**
 * One health round trip: `PING` on one server or the sentinel-managed primary. On a cluster,
 * every slot must have a primary the client holds a connection to, and each of those must
 * answer `PING`: readiness says down while any slot has no reachable primary (a failover in
 * progress, a shard lost with its replicas). Pinging only the primaries still connected would
 * say up once the client dropped a dead node from its pool while its slots have no owner yet.
 *
 * @example
 * await storeCall("memory", () => pingRedis(client));
 */
export async function pingRedis(client: PingableRedis): Promise<void> {
  if (typeof client.nodes !== "function") {
    await client.ping?.();
    return;
  }
  const primaries = client.nodes("master");
  if (primaries.length === 0) throw new Error("no reachable cluster primary");
  const byKey = new Map(primaries.map((primary) => [keyOf(primary), primary]));
  const owners = new Set<ClusterNodeClient>(client.slots ? [] : primaries);
  if (client.slots) {
    for (let slot = 0; slot < CLUSTER_SLOTS; slot++) {
      const ownerKey = client.slots[slot]?.[0];
      const owner = ownerKey === undefined ? undefined : byKey.get(ownerKey);
      if (owner === undefined) throw new Error(`cluster slot ${slot} has no reachable primary`);
      owners.add(owner);
    }
  }
  await Promise.all([...owners].map((owner) => owner.ping()));
}
