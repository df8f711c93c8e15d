import { describe, expect, it } from "vitest";
import { compileTrustProxy, isLoopbackAddress, resolveClientAddress } from "./client-address.js";

const forwarded = { "x-forwarded-for": "6.6.6.6, 203.0.113.7, 10.0.0.9" };

describe("client address (proxy-addr semantics)", () => {
  it("walks X-Forwarded-For from the right while the hop is trusted", () => {
    expect(resolveClientAddress("10.0.0.2", forwarded, compileTrustProxy(false))).toBe("10.0.0.2");
    expect(resolveClientAddress("10.0.0.2", forwarded, compileTrustProxy(1))).toBe("10.0.0.9");
    expect(resolveClientAddress("10.0.0.2", forwarded, compileTrustProxy(true))).toBe("10.0.0.9");
    expect(resolveClientAddress("10.0.0.2", forwarded, compileTrustProxy(2))).toBe("203.0.113.7");
    expect(resolveClientAddress("10.0.0.2", forwarded, compileTrustProxy("10.0.0.0/8"))).toBe("203.0.113.7");
    expect(resolveClientAddress("10.0.0.2", forwarded, compileTrustProxy(["10.0.0.0/8", "203.0.113.7"]))).toBe("6.6.6.6");
    expect(resolveClientAddress("127.0.0.1", forwarded, compileTrustProxy("loopback, 10.0.0.0/8"))).toBe("203.0.113.7");
    // The peer itself untrusted: the header is not read at all.
    expect(resolveClientAddress("192.0.2.1", forwarded, compileTrustProxy("10.0.0.0/8"))).toBe("192.0.2.1");
    expect(
      resolveClientAddress(
        "10.0.0.2",
        forwarded,
        compileTrustProxy((address) => address.startsWith("10.")),
      ),
    ).toBe("203.0.113.7");
  });

  it("survives a trust function that throws and refuses addresses that do not parse", () => {
    expect(
      resolveClientAddress("10.0.0.2", forwarded, () => {
        throw new Error("bad");
      }),
    ).toBe("10.0.0.2");
    expect(() => compileTrustProxy("not-an-ip")).toThrow(/invalid IP/);
  });

  it("recognizes loopback in every spelling", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ["10.0.0.1", "192.0.2.2", "", "localhost", "garbage"]) expect(isLoopbackAddress(address), address).toBe(false);
  });
});
