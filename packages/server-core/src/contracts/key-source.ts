/**
 * What one upstream answer said about the key it was sent with: the status and headers
 * (`retry-after`, a vendor's rate-limit headers), or no status when no answer came (a network
 * failure, a timeout, the caller's abort).
 */
export interface KeyOutcome {
  status?: number;
  headers?: Headers;
}

/** One key held for one upstream request. `report` is called exactly once, when the answer's status is known or the request failed. */
export interface KeyLease {
  /** The secret to send (never logged, never shown). */
  readonly key: string;
  report(outcome: KeyOutcome): void;
}

/**
 * Where a provider's credential comes from, request by request. The runtime asks it for a key
 * before each upstream request and tells it how that request went, so a source holding several
 * keys (a pool) can cool a key that answered 429 until its reset and retire one answering
 * 401/403. A source with one key hands it out every time.
 *
 * @example
 * const one: KeySource = { pick: () => ({ key: process.env.GROQ_API_KEY ?? "", report: () => {} }) };
 */
export interface KeySource {
  /**
   * How many keys it holds (a pool). A request its key was refused for (429, 401, 403) is sent
   * again with another key, up to this many attempts in all; one key when absent.
   */
  readonly keys?: number;
  /** A key for the next request; may wait (honouring `signal`) or reject when no key can serve. */
  pick(signal?: AbortSignal): KeyLease | Promise<KeyLease>;
}
