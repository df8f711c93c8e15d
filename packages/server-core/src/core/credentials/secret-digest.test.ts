import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../pricing/token-estimate.js";
import { parseBearer } from "./credentials.js";
import { constantTimeEquals, digestsEqual, secretDigest, secretDigestBytes } from "./secret-digest.js";

describe("the one credential and digest helper set", () => {
  it("parseBearer reads the token of any-case Bearer, trimmed, and nothing else", () => {
    expect(parseBearer("Bearer sk-1")).toBe("sk-1");
    expect(parseBearer("bearer   sk-2  ")).toBe("sk-2");
    expect(parseBearer("Basic abc")).toBeUndefined();
    expect(parseBearer("Bearer ")).toBeUndefined();
    expect(parseBearer(undefined)).toBeUndefined();
  });

  it("constantTimeEquals compares secrets of any length", () => {
    expect(constantTimeEquals("secret", "secret")).toBe(true);
    expect(constantTimeEquals("secret", "secreT")).toBe(false);
    expect(constantTimeEquals("short", "a much longer secret")).toBe(false);
  });

  it("digestsEqual refuses different lengths and empty digests instead of throwing", () => {
    const digest = secretDigestBytes("key");
    expect(digest).toHaveLength(32);
    expect(digestsEqual(digest, secretDigestBytes("key"))).toBe(true);
    expect(digestsEqual(digest, secretDigestBytes("other"))).toBe(false);
    expect(digestsEqual(digest, digest.subarray(0, 16))).toBe(false);
    expect(digestsEqual(Buffer.alloc(0), Buffer.alloc(0))).toBe(false);
  });

  it("secretDigest and secretDigestBytes are the same SHA-256", () => {
    expect(secretDigest("key")).toBe(secretDigestBytes("key").toString("base64url"));
  });
});

describe("estimateTokens", () => {
  it("counts one token per four characters, rounded up, from a text or a length", () => {
    expect(estimateTokens("Hello, world")).toBe(3);
    expect(estimateTokens(4001)).toBe(1001);
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens(-5)).toBe(0);
  });
});
