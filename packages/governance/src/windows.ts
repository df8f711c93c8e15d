import type { BudgetWindow } from "./records.js";

/** The calendar windows (UTC) one call is counted in: ids of each window and seconds to each reset. */
export interface WindowClock {
  nowMs: number;
  minute: string;
  ids: Record<BudgetWindow, string>;
  resets: Record<Exclude<BudgetWindow, "total">, number>;
  /** When each calendar window ends (epoch ms): its counters expire a day after (a `total` never does). */
  ends: Record<Exclude<BudgetWindow, "total">, number>;
  secondsToMinute: number;
}

/**
 * How long a window's counters outlive the window: late settlements of its calls (a queue held
 * through a store outage, a clock a little behind) still land, and then the counters go.
 */
export const WINDOW_COUNTER_GRACE_MS = 86_400_000;

const DAY_MS = 86_400_000;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Start (ms) of the UTC day, Monday-based week and month containing `ms`. */
export function windowStart(window: Exclude<BudgetWindow, "total">, ms: number): number {
  const date = new Date(ms);
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (window === "day") return day;
  if (window === "week") return day - ((date.getUTCDay() + 6) % 7) * DAY_MS;
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** When the window containing `ms` ends (ms). */
export function windowEnd(window: Exclude<BudgetWindow, "total">, ms: number): number {
  const start = windowStart(window, ms);
  if (window === "day") return start + DAY_MS;
  if (window === "week") return start + 7 * DAY_MS;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/**
 * The windows of a moment: budgets are calendar windows in UTC (day from 00:00, week from
 * Monday, month from the 1st), rate limits calendar minutes.
 *
 * @example
 * windowClock(Date.parse("2026-11-26T10:00:30Z")).ids.week; // "w2026-11-23"
 */
export function windowClock(nowMs: number): WindowClock {
  // One clock per second serves every call in it (the ids change at most once a minute).
  const second = Math.floor(nowMs / 1000);
  if (lastClock && lastSecond === second) return { ...lastClock, nowMs };
  lastClock = computeClock(nowMs);
  lastSecond = second;
  return lastClock;
}

let lastClock: WindowClock | undefined;
let lastSecond = -1;

function computeClock(nowMs: number): WindowClock {
  const secondsUntil = (end: number) => Math.max(1, Math.ceil((end - nowMs) / 1000));
  const ends = { day: windowEnd("day", nowMs), week: windowEnd("week", nowMs), month: windowEnd("month", nowMs) };
  return {
    nowMs,
    minute: String(Math.floor(nowMs / 60_000)),
    ids: {
      day: isoDay(windowStart("day", nowMs)),
      week: `w${isoDay(windowStart("week", nowMs))}`,
      month: isoDay(windowStart("month", nowMs)).slice(0, 7),
      total: "total",
    },
    resets: { day: secondsUntil(ends.day), week: secondsUntil(ends.week), month: secondsUntil(ends.month) },
    ends,
    secondsToMinute: secondsUntil((Math.floor(nowMs / 60_000) + 1) * 60_000),
  };
}
