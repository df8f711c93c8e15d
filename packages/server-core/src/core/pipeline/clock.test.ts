import { afterEach, describe, expect, it, vi } from "vitest";
import { uptimeClock } from "./clock.js";

describe("uptimeClock", () => {
  afterEach(() => vi.restoreAllMocks());

  it("counts milliseconds from its creation", () => {
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000_000);
    const uptime = uptimeClock();
    now.mockReturnValue(1_002_500);
    expect(uptime()).toBe(2_500);
  });

  it("restarts at the first reading when created on a stopped clock (Workers' module scope reads 0)", () => {
    const now = vi.spyOn(Date, "now").mockReturnValue(0);
    const uptime = uptimeClock();
    now.mockReturnValue(1_795_498_016_500);
    expect(uptime()).toBe(0);
    now.mockReturnValue(1_795_498_018_000);
    expect(uptime()).toBe(1_500);
  });
});
