import { describe, expect, it } from "vitest";
import { unixParts } from "./finished-span.js";
import { ProtobufWriter } from "./protobuf-writer.js";

describe("protobuf writer", () => {
  it("writes unix nanoseconds as fixed64 exactly, without a bigint", () => {
    const writer = new ProtobufWriter();
    const samples: Array<[number, number]> = [
      [0, 0],
      [1, 999_999],
      [1_764_211_200_123, 456_789],
      [2 ** 41 - 1, 999_999],
      [4_294_967, 296_000],
    ];
    for (const [milliseconds, nanoseconds] of samples) {
      writer.reset();
      writer.fixed64Nanos(1, milliseconds, nanoseconds);
      expect(writer.take().readBigUInt64LE(1)).toBe(BigInt(milliseconds) * 1_000_000n + BigInt(nanoseconds));
    }
  });

  it("reads the clock as whole unix milliseconds and nanoseconds past them", () => {
    const [milliseconds, nanoseconds] = unixParts(performance.now() + (performance.timeOrigin % 1));
    expect(Math.abs(milliseconds - Date.now())).toBeLessThan(50);
    expect(nanoseconds).toBeGreaterThanOrEqual(0);
    expect(nanoseconds).toBeLessThan(1_000_000);
  });
});
