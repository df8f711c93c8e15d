import { describe, expect, it } from "vitest";
import { keyDigest, newKeySecret } from "./key-secret.js";
import { windowClock, windowEnd, windowStart } from "./windows.js";

describe("calendar windows in UTC", () => {
  it("day from 00:00, week from Monday, month from the 1st; resets at their ends", () => {
    const sunday = Date.parse("2026-11-29T23:59:30Z");
    expect(new Date(windowStart("day", sunday)).toISOString()).toBe("2026-11-29T00:00:00.000Z");
    expect(new Date(windowStart("week", sunday)).toISOString()).toBe("2026-11-23T00:00:00.000Z");
    expect(new Date(windowEnd("week", sunday)).toISOString()).toBe("2026-11-30T00:00:00.000Z");
    expect(new Date(windowStart("week", Date.parse("2026-11-30T00:00:00Z"))).toISOString()).toBe("2026-11-30T00:00:00.000Z");
    expect(new Date(windowEnd("month", Date.parse("2026-12-31T12:00:00Z"))).toISOString()).toBe("2027-01-01T00:00:00.000Z");
    const clock = windowClock(sunday);
    expect(clock.ids).toEqual({ day: "2026-11-29", week: "w2026-11-23", month: "2026-11", total: "total" });
    expect(clock.resets.day).toBe(30);
    expect(clock.secondsToMinute).toBe(30);
  });
});

describe("key secrets", () => {
  it("are the prefix and 256 random bits; digests are keyed HMACs when a secret is set, SHA-256 otherwise", () => {
    const secret = newKeySecret("sk-conduit-");
    expect(secret).toMatch(/^sk-conduit-[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice("sk-conduit-".length), "base64url")).toHaveLength(32);
    expect(newKeySecret("sk-conduit-")).not.toBe(secret);
    expect(keyDigest(secret, undefined)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyDigest(secret, "server-secret-one")).not.toBe(keyDigest(secret, "server-secret-two"));
    expect(keyDigest(secret, "server-secret-one")).toBe(keyDigest(secret, "server-secret-one"));
    expect(keyDigest(secret, undefined)).not.toContain(secret);
  });
});
