import { randomUUID } from "node:crypto";
import { slotPrefix } from "@conduit-ai/server-core/internal";
import type { RedisPoolClient } from "../pool/store/redis-store.js";

/** One call in flight on a target: `end()` exactly once, when its answer is over (or failed). */
export interface InFlightCall {
  end(): void;
}

/**
 * What strategies read about targets: calls in flight and the moving average of time to first
 * byte — both shared by every process on one Redis (`RedisRoutingStats`), else this process's.
 */
export interface RoutingStats {
  /** Calls in flight per target name, in the order asked. */
  inFlight(targets: readonly string[]): number[] | Promise<number[]>;
  /** Counts a call on `target` until `end()`. */
  start(target: string): InFlightCall | Promise<InFlightCall>;
  /** Folds one time to first byte into the target's moving average. */
  recordLatency(target: string, ms: number): void;
  /** The moving averages per target name, in the order asked; undefined before a target's first sample. */
  latencies(targets: readonly string[]): Array<number | undefined> | Promise<Array<number | undefined>>;
}

/** Weight of a new sample in the moving average: recent answers count most, one outlier little. */
const LATENCY_ALPHA = 0.2;

class LatencyAverages {
  private readonly averages = new Map<string, number>();
  recordLatency(target: string, ms: number): void {
    const previous = this.averages.get(target);
    this.averages.set(target, previous === undefined ? ms : previous + LATENCY_ALPHA * (ms - previous));
  }
  latencies(targets: readonly string[]): Array<number | undefined> {
    return targets.map((target) => this.averages.get(target));
  }
}

/** Routing figures of this process only. */
export class MemoryRoutingStats extends LatencyAverages implements RoutingStats {
  private readonly counts = new Map<string, number>();

  inFlight(targets: readonly string[]): number[] {
    return targets.map((target) => this.counts.get(target) ?? 0);
  }

  start(target: string): InFlightCall {
    this.counts.set(target, (this.counts.get(target) ?? 0) + 1);
    let ended = false;
    return {
      end: () => {
        if (ended) return;
        ended = true;
        this.counts.set(target, (this.counts.get(target) ?? 1) - 1);
      },
    };
  }
}

// One sorted set per target: a call is a member scored by its start, so a process that died
// mid-call leaves members that age out after `staleMs` instead of a counter that never drops.
const READ_IN_FLIGHT = `
local result = {}
for index, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1])
  result[index] = redis.call('ZCARD', key)
end
return result`;
const ADD_CALL = "redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2]) redis.call('PEXPIRE', KEYS[1], ARGV[3]) return 1";
const REMOVE_CALL = "return redis.call('ZREM', KEYS[1], ARGV[1])";
// One hash of averages per deployment: a sample is folded in atomically, whichever process measured it.
const RECORD_LATENCY = `
local previous = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
local sample = tonumber(ARGV[2])
local average = sample
if previous then average = previous + tonumber(ARGV[3]) * (sample - previous) end
redis.call('HSET', KEYS[1], ARGV[1], tostring(average))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;
const READ_LATENCIES = "return redis.call('HMGET', KEYS[1], unpack(ARGV))";
/** Figures of deployments nobody called for a day are forgotten (measured afresh, unmeasured first). */
const LATENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Calls in flight and latency averages kept in Redis, so every process of a deployment sees the
 * others' calls and measurements. Latency is best effort: a sample Redis misses is lost, and a
 * read that fails falls back to this process's own averages (kept beside).
 */
export class RedisRoutingStats implements RoutingStats {
  private readonly prefix: string;
  private readonly local = new LatencyAverages();

  constructor(
    private readonly redis: RedisPoolClient,
    prefix = "conduit:proxy:",
    /** A call older than this no longer counts (the proxy's `timeoutMs`: no answer lasts longer unnoticed). */
    private readonly staleMs = 10 * 60 * 1000,
  ) {
    this.prefix = slotPrefix(prefix);
  }

  private keyOf(target: string): string {
    return `${this.prefix}routing:inflight:${target}`;
  }

  recordLatency(target: string, ms: number): void {
    this.local.recordLatency(target, ms);
    const key = `${this.prefix}routing:latency`;
    this.redis.eval(RECORD_LATENCY, 1, key, target, ms, LATENCY_ALPHA, LATENCY_TTL_MS).catch(() => undefined);
  }

  async latencies(targets: readonly string[]): Promise<Array<number | undefined>> {
    if (targets.length === 0) return [];
    try {
      const values = (await this.redis.eval(READ_LATENCIES, 1, `${this.prefix}routing:latency`, ...targets)) as Array<string | null>;
      return values.map((value) => (value === null || value === undefined ? undefined : Number(value)));
    } catch {
      return this.local.latencies(targets);
    }
  }

  async inFlight(targets: readonly string[]): Promise<number[]> {
    if (targets.length === 0) return [];
    const counts = (await this.redis.eval(
      READ_IN_FLIGHT,
      targets.length,
      ...targets.map((target) => this.keyOf(target)),
      Date.now() - this.staleMs,
    )) as number[];
    return counts.map(Number);
  }

  async start(target: string): Promise<InFlightCall> {
    const key = this.keyOf(target);
    const member = randomUUID();
    await this.redis.eval(ADD_CALL, 1, key, Date.now(), member, this.staleMs);
    let ended = false;
    return {
      end: () => {
        if (ended) return;
        ended = true;
        // Best effort: a lost removal ages out after staleMs.
        this.redis.eval(REMOVE_CALL, 1, key, member).catch(() => undefined);
      },
    };
  }
}
