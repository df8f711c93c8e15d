import type { UsageEvent } from "../usage/usage-event.js";
import { windowClock } from "../windows.js";
import type { AdmitInput, Reservation } from "./governance-store.js";
import { windowExpiries } from "./stored-key.js";

/**
 * What the admit script stores beside an admitted call's lease (`{tag}:calls`, by lease id) until
 * its settlement removes it: all a sweeper needs to settle the call when its process is lost —
 * the reservation exactly as admitted, and the usage event to write for it. The key's `user` is
 * added by the script from the key's record. The windows and minute the reservation sits in are
 * not stored: they are a function of the admission time (`windowClock`), recomputed by the sweeper.
 */
export interface OpenCall {
  keyId: string;
  team?: string;
  user?: string;
  /** The model the client named (or the first the call may reach; `unknown` when none). */
  model: string;
  inputTokens: number;
  outputTokens: number;
  reservedPicoUsd: number;
  /** The admission's clock (`WindowClock.nowMs`): its windows, minute and the event's time. */
  admittedAtMs: number;
}

/** The HTTP status a swept call is recorded with: its process was lost, the client got no answer from it. */
export const PROCESS_LOST_STATUS = 499;

/** The record of a call being admitted (`call` is its `input.call`) for the key `keyId`. */
export function openCallOf(
  call: NonNullable<AdmitInput["call"]>,
  input: AdmitInput,
  keyId: string,
  team: string | undefined,
): Omit<OpenCall, "user"> {
  return {
    keyId,
    ...(team ? { team } : {}),
    model: call.model,
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    reservedPicoUsd: input.estimatedPicoUsd,
    admittedAtMs: input.clock.nowMs,
  };
}

/** The JSON the admit script stores (it ends with `}`: the script appends the key's `user`). */
export function openCallJson(call: Omit<OpenCall, "user">): string {
  return JSON.stringify(call);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A stored call record, or undefined when it cannot be one (then it is never swept: nothing is guessed). */
export function parseOpenCall(json: string): OpenCall | undefined {
  let value: Partial<OpenCall>;
  try {
    value = JSON.parse(json) as Partial<OpenCall>;
  } catch {
    return undefined;
  }
  if (
    typeof value.keyId !== "string" ||
    typeof value.model !== "string" ||
    (value.team !== undefined && typeof value.team !== "string") ||
    !isCount(value.inputTokens) ||
    !isCount(value.outputTokens) ||
    !isCount(value.reservedPicoUsd) ||
    !isCount(value.admittedAtMs)
  )
    return undefined;
  return value as OpenCall;
}

/** The reservation an open call holds, as its own settlement would have named it. */
export function reservationOfCall(leaseId: string, call: OpenCall): Reservation {
  const clock = windowClock(call.admittedAtMs);
  return {
    keyId: call.keyId,
    ...(call.team ? { team: call.team } : {}),
    leaseId,
    minute: clock.minute,
    windowIds: clock.ids,
    windowExpiries: windowExpiries(clock),
    reservedTokens: call.inputTokens + call.outputTokens,
    reservedPicoUsd: call.reservedPicoUsd,
  };
}

/**
 * The usage event of a call whose process was lost: it is charged its reservation (upstream may
 * have served it), so the history says what the spend counts — marked `estimated`, status 499,
 * at the time it was admitted (its budget windows).
 */
export function lostCallEvent(leaseId: string, call: OpenCall): UsageEvent {
  return {
    id: leaseId,
    time: new Date(call.admittedAtMs).toISOString(),
    key: call.keyId,
    ...(call.team ? { team: call.team } : {}),
    ...(typeof call.user === "string" ? { user: call.user } : {}),
    model: call.model,
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: call.reservedPicoUsd / 1e12,
    status: PROCESS_LOST_STATUS,
    latencyMs: 0,
    estimated: true,
  };
}
