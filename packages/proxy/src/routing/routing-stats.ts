import { randomUUID } from "node:crypto";
import { slotPrefix } from "@conduit-ai/server-core/internal";
import type { RedisPoolClient } from "../pool/store/redis-store.js";

/** One call in flight on a target: `end()` exactly once, when its answer is over (or failed). */
export interface InFlightCall {
  end(): void;
}

/**
 * What strategies read about targets: calls in flight (shared by every process on one Redis)
 * and the moving average of time to first byte (this process's own measurements).
 */
export interface RoutingStats {
  /** Calls in flight per target name, in the order asked. */
  inFlight(targets: readonly string[]): number[] | Promise<number[]>;
  /** Counts a call on `target` until `end()`. */
  start(target: string): InFlightCall | Promise<InFlightCall>;
  /** Folds one time to first byte into the target's moving average. */
  recordLatency(target: string, ms: number): void;
  /** The moving average, undefined before the first sample. */
  latency(target: string): number | undefined;
}

/** Weight of a new sample in the moving average: recent answers count most, one outlier little. */
const LATENCY_ALPHA = 0.2;

class LatencyAverages {
  private readonly averages = new Map<string, number>();
  recordLatency(target: string, ms: number): void {
    const previous = this.averages.get(target);
    this.averages.set(target, previous === undefined ? ms : previous + LATENCY_ALPHA * (ms - previous));
  }
  latency(target: string): number | undefined {
    return this.averages.get(target);
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

/** Calls in flight counted in Redis, so every process of a deployment sees the others' calls. */
export class RedisRoutingStats extends LatencyAverages implements RoutingStats {
  private readonly prefix: string;

  constructor(
    private readonly redis: RedisPoolClient,
    prefix = "conduit:proxy:",
    /** A call older than this no longer counts (the proxy's `timeoutMs`: no answer lasts longer unnoticed). */
    private readonly staleMs = 10 * 60 * 1000,
  ) {
    super();
    this.prefix = slotPrefix(prefix);
  }

  private keyOf(target: string): string {
    return `${this.prefix}routing:inflight:${target}`;
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
