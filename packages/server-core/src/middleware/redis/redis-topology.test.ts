import { describe, expect, it } from "vitest";
import { slotPrefix } from "./hash-tag.js";
import { describeRedisTopology, redisTopologyFrom } from "./redis-topology.js";

describe("redisTopologyFrom", () => {
  it("reads each of the three forms from the environment, with credentials, TLS and the key prefix", () => {
    expect(redisTopologyFrom({ REDIS_URL: "rediss://cache.internal:6380" })).toEqual({
      form: "url",
      url: "rediss://cache.internal:6380",
      tls: true,
      keyPrefix: "conduit:",
    });
    expect(
      redisTopologyFrom({ REDIS_CLUSTER_NODES: "10.0.0.1:7000, 10.0.0.2:7001", REDIS_PASSWORD: "s3cret", REDIS_KEY_PREFIX: "acme:" }),
    ).toEqual({
      form: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
      ],
      password: "s3cret",
      tls: false,
      keyPrefix: "acme:",
    });
    expect(
      redisTopologyFrom({
        REDIS_SENTINELS: "rediss://watch:pw@s1:26379,rediss://s2:26379",
        REDIS_SENTINEL_MASTER: "primary",
        REDIS_USERNAME: "app",
        REDIS_PASSWORD: "pw2",
      }),
    ).toEqual({
      form: "sentinel",
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "s2", port: 26379 },
      ],
      name: "primary",
      sentinelUsername: "watch",
      sentinelPassword: "pw",
      username: "app",
      password: "pw2",
      tls: true,
      keyPrefix: "conduit:",
    });
    expect(redisTopologyFrom({})).toBeUndefined();
  });

  it("reads the config file's redis key; the environment's form replaces it and its credentials win", () => {
    const file = { cluster: ["a:7000", "b:7000"], password: "from-file", keyPrefix: "file:" };
    expect(redisTopologyFrom({}, file)).toMatchObject({ form: "cluster", password: "from-file", keyPrefix: "file:" });
    expect(redisTopologyFrom({ REDIS_URL: "redis://one:6379", REDIS_PASSWORD: "from-env" }, file)).toEqual({
      form: "url",
      url: "redis://one:6379",
      password: "from-env",
      tls: false,
      keyPrefix: "file:",
    });
    expect(redisTopologyFrom({}, { sentinels: ["s1:26379"], name: "mymaster" })).toMatchObject({ form: "sentinel", name: "mymaster" });
  });

  it("refuses two forms at once, naming both, and incomplete or malformed forms", () => {
    expect(() => redisTopologyFrom({ REDIS_URL: "redis://a:1", REDIS_CLUSTER_NODES: "b:2" })).toThrow(
      /REDIS_URL and REDIS_CLUSTER_NODES are both set/,
    );
    expect(() => redisTopologyFrom({ REDIS_CLUSTER_NODES: "b:2", REDIS_SENTINELS: "c:3" })).toThrow(
      /REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set/,
    );
    expect(() => redisTopologyFrom({}, { url: "redis://a:1", sentinels: ["c:3"], name: "x" })).toThrow(
      /redis\.url and redis\.sentinels are both set/,
    );
    expect(() => redisTopologyFrom({ REDIS_SENTINELS: "c:3" })).toThrow(/REDIS_SENTINEL_MASTER/);
    expect(() => redisTopologyFrom({ REDIS_CLUSTER_NODES: "a:notaport" })).toThrow(/not host:port/);
    expect(() => redisTopologyFrom({ REDIS_URL: "http://a:1" })).toThrow(/redis\(s\):\/\//);
    expect(() => redisTopologyFrom({ REDIS_URL: "redis://a:1", REDIS_CLUSTER_NODES: "b:2" })).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG" }),
    );
  });

  it("describes a topology for logs without its password", () => {
    expect(describeRedisTopology(redisTopologyFrom({ REDIS_URL: "redis://user:hunter2@h:6379/2" })!)).toBe("redis://h:6379/2");
    expect(describeRedisTopology(redisTopologyFrom({ REDIS_CLUSTER_NODES: "rediss://:pw@a:1,b:2" })!)).toBe("cluster a:1,b:2 (tls)");
    expect(describeRedisTopology(redisTopologyFrom({ REDIS_SENTINELS: "s:1", REDIS_SENTINEL_MASTER: "m" })!)).toBe("sentinel m@s:1");
  });
});

describe("slotPrefix", () => {
  it("makes the prefix the hash tag, keeps a tag already there, and never yields an empty tag", () => {
    expect(slotPrefix("conduit:auth:")).toBe("{conduit:auth}:");
    expect(slotPrefix("{acme}:auth:")).toBe("{acme}:auth:");
    expect(slotPrefix("")).toBe("{conduit}:");
  });
});
