/** The outcome of one counted request in a (fixed or sliding) window. */
export interface WindowResult {
  allowed: boolean;
  /** Requests counted in the window, this one included when allowed. */
  count: number;
  /** Milliseconds until the window (or its oldest used sub-window) frees capacity. */
  resetMs: number;
}

/** The outcome of taking one token from a bucket. */
export interface BucketResult {
  allowed: boolean;
  /** Tokens left (fractional while refilling). */
  tokens: number;
  /** Milliseconds until one token is available (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

export interface WindowCheck {
  maxRequests: number;
  windowMs: number;
  /** 1 = fixed window; more = sliding window made of that many sub-windows. */
  subWindows: number;
}

export interface BucketCheck {
  capacity: number;
  /** Time to refill `capacity` tokens (continuous refill at capacity / windowMs). */
  windowMs: number;
}

/**
 * Where counters live. Each call checks and counts atomically, so N servers sharing a
 * store admit exactly `maxRequests` together. A rejected request is not counted.
 */
export interface RateLimitStore {
  hitWindow(key: string, check: WindowCheck): Promise<WindowResult>;
  takeToken(key: string, check: BucketCheck): Promise<BucketResult>;
  /** One round trip for readiness (stores that can fail); throws when the store is unreachable. */
  ping?(): Promise<void>;
}
