import type { KeyLease, KeySource } from "@conduit-ai/server-core";

/**
 * A `KeySource` holding one key: every request sends it, outcomes change nothing. What a
 * provider with one API key uses; several keys are a pool (see `RuntimeOptions.keySources`).
 *
 * @example
 * const keys = singleKeySource("gsk-…");
 */
export function singleKeySource(key: string): KeySource {
  const lease: KeyLease = { key, report: () => {} };
  return { pick: () => lease };
}
