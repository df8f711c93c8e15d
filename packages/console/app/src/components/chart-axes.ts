/**
 * The time axis of the console's charts: `day` for the Usage chart (one point per UTC day, labelled
 * with dates), `clock` for the live Overview chart (points seconds apart, labelled with clock times).
 * uPlot's own defaults stretch a single day's point over years and label seconds with milliseconds.
 */
export type TimeAxis = "day" | "clock";

const DAY_SECONDS = 86_400;

/** Tick spacings (seconds) uPlot may choose from: whole days for `day`, whole seconds and minutes for `clock`. */
export const TICK_SPACINGS: Record<TimeAxis, number[]> = {
  day: [DAY_SECONDS, 2 * DAY_SECONDS, 7 * DAY_SECONDS, 14 * DAY_SECONDS, 30 * DAY_SECONDS, 90 * DAY_SECONDS],
  clock: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600],
};

/**
 * The x range to show: the data's own, widened around a single point (half a day either side
 * for days, half a minute for the clock) so one day of data is one day wide, not years.
 */
export function timeRange(axis: TimeAxis, min: number | null, max: number | null): [number, number] {
  const now = Date.now() / 1000;
  const low = min ?? max ?? now;
  const high = max ?? min ?? now;
  const least = axis === "day" ? DAY_SECONDS : 60;
  if (high - low >= least) return [low, high];
  const middle = (low + high) / 2;
  return [middle - least / 2, middle + least / 2];
}

const two = (value: number) => String(value).padStart(2, "0");
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A tick's label: `Dec 7` (UTC, as the usage days are) or `14:03:05` (the browser's clock). */
export function timeLabel(axis: TimeAxis, seconds: number): string {
  const date = new Date(seconds * 1000);
  if (axis === "day") return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`;
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** Every UTC day from `days - 1` days ago to today (epoch seconds at midnight): the usage chart's x, gaps filled with zero. */
export function utcDays(days: number, today = Date.now()): number[] {
  const midnight = Math.floor(today / 1000 / DAY_SECONDS) * DAY_SECONDS;
  return Array.from({ length: days }, (_, index) => midnight - (days - 1 - index) * DAY_SECONDS);
}
