import { describe, expect, it } from "vitest";
import { TICK_SPACINGS, timeLabel, timeRange, utcDays } from "../app/src/components/chart-axes.js";

// The console's charts fit their data: one day of usage spans about a day (uPlot's default
// stretched it over 2027–2029), labelled with dates; the live chart is labelled with clock times
// (uPlot's default said `:04.700`).

const DAY = 86_400;
const DECEMBER_7 = Date.UTC(2026, 11, 7) / 1000;

describe("the console's time axes", () => {
  it("one day of usage data spans one day, labelled with its date", () => {
    const [min, max] = timeRange("day", DECEMBER_7, DECEMBER_7);
    expect(max - min).toBe(DAY);
    expect(min).toBeLessThanOrEqual(DECEMBER_7);
    expect(max).toBeGreaterThanOrEqual(DECEMBER_7);
    expect(timeLabel("day", DECEMBER_7)).toBe("Dec 7");
    expect(TICK_SPACINGS.day.every((spacing) => spacing % DAY === 0)).toBe(true);
  });

  it("a period of days keeps its own range; every day is a point, gaps included", () => {
    const days = utcDays(31, DECEMBER_7 * 1000 + 5_000);
    expect(days).toHaveLength(31);
    expect(days.at(-1)).toBe(DECEMBER_7);
    expect((days[1] as number) - (days[0] as number)).toBe(DAY);
    expect(timeRange("day", days[0] as number, days.at(-1) as number)).toEqual([days[0], DECEMBER_7]);
  });

  it("the live chart is labelled with clock times in whole seconds, never milliseconds", () => {
    const label = timeLabel("clock", DECEMBER_7 + 3_785.7);
    expect(label).toMatch(/^\d{2}:\d{2}:\d{2}$/);
    expect(TICK_SPACINGS.clock.every((spacing) => Number.isInteger(spacing) && spacing >= 1)).toBe(true);
    const [min, max] = timeRange("clock", DECEMBER_7, DECEMBER_7);
    expect(max - min).toBe(60);
  });
});
