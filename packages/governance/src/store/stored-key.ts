import { BoundedCache } from "@conduit-ai/server-core/internal";
import type { KeyRecord } from "../records.js";
import { WINDOW_COUNTER_GRACE_MS, type WindowClock } from "../windows.js";
import type { AdmitInput, AdmitOutcome } from "./governance-store.js";

/** A key's record as the admit script reads it: the expiry also as epoch ms, so Lua compares numbers. */
export function storedKeyJson(record: KeyRecord): string {
  return JSON.stringify(record.expiresAt ? { ...record, expiresAtMs: Date.parse(record.expiresAt) } : record);
}

/** When the counters of a moment's day, week and month windows expire: a day after each window ends. */
export function windowExpiries(clock: WindowClock): WindowClock["ends"] {
  const { ends } = clock;
  return {
    day: ends.day + WINDOW_COUNTER_GRACE_MS,
    week: ends.week + WINDOW_COUNTER_GRACE_MS,
    month: ends.month + WINDOW_COUNTER_GRACE_MS,
  };
}

/** Parsed records by their JSON: the admit script answers the same string for every call of a key. */
const parsed = new BoundedCache<KeyRecord>({ maxEntries: 10_000 });

function keyOf(json: string | undefined): KeyRecord {
  const text = json ?? "{}";
  const cached = parsed.get(text);
  if (cached) return cached;
  const { expiresAtMs: _expiresAtMs, ...record } = JSON.parse(text) as KeyRecord & { expiresAtMs?: number };
  parsed.set(text, record);
  return record;
}

type Scope = "key" | "team";

/** The admit script's reply (`[code, keyJson, …details]`) as an outcome. */
export function admitOutcomeOf(reply: string[], input: AdmitInput): AdmitOutcome {
  const [code, keyJson, scope, detail, extra] = reply;
  if (code === "invalid_key") return { admitted: false, reason: "invalid_key" };
  if (code === "invalid_key_record") return { admitted: false, reason: "invalid_key_record", scope: scope as Scope };
  if (code === "invalid_argument") return { admitted: false, reason: "invalid_argument", argument: String(scope) };
  let key: KeyRecord;
  try {
    key = keyOf(keyJson);
  } catch {
    // The script read it; JSON.parse did not (it never should): this key alone is refused.
    return { admitted: false, reason: "invalid_key_record", scope: "key" };
  }
  switch (code) {
    case "ok":
      return {
        admitted: true,
        key,
        reservation: {
          keyId: key.id,
          ...(key.team ? { team: key.team } : {}),
          leaseId: input.leaseId,
          minute: input.clock.minute,
          windowIds: input.clock.ids,
          windowExpiries: windowExpiries(input.clock),
          reservedTokens: input.estimatedTokens,
          reservedPicoUsd: input.estimatedPicoUsd,
        },
      };
    case "model_not_allowed":
      return { admitted: false, reason: "model_not_allowed", key };
    case "model_unpriced":
      return { admitted: false, reason: "model_unpriced", scope: scope as Scope, key };
    case "rate_limited":
      return {
        admitted: false,
        reason: "rate_limited",
        key,
        scope: scope as Scope,
        limit: detail as "rpm" | "tpm",
        retryAfterSeconds: Number(extra),
      };
    case "concurrency":
      return { admitted: false, reason: "concurrency", key, scope: scope as Scope, queueTimeoutMs: Number(detail) };
    case "budget_exceeded":
      return {
        admitted: false,
        reason: "budget_exceeded",
        key,
        scope: scope as Scope,
        window: detail as "day" | "week" | "month" | "total",
        ...(extra ? { retryAfterSeconds: Number(extra) } : {}),
      };
    default:
      throw new Error(`governance: unexpected admit reply ${String(code)}`);
  }
}
