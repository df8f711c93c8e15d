/**
 * The part of a Redis client the stores need, typed structurally so `server-core` never
 * imports `ioredis` at runtime: an `ioredis` `Redis` or `Cluster` instance fits as is.
 */
export interface RedisEvalClient {
  eval(script: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
}
