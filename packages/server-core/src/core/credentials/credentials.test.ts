import { describe, expect, it } from "vitest";
import { decodeBasicCredential, parseAuthorization, readCookie } from "./credentials.js";

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe("parseAuthorization", () => {
  it("reads the credential with a case-insensitive scheme", () => {
    expect(parseAuthorization("Bearer abc.def", "Bearer")).toEqual({ kind: "token", token: "abc.def" });
    expect(parseAuthorization("bEaReR   abc ", "Bearer")).toEqual({ kind: "token", token: "abc" });
  });

  it("flags a missing or split credential and a foreign scheme as malformed", () => {
    expect(parseAuthorization("Bearer", "Bearer").kind).toBe("malformed");
    expect(parseAuthorization("Bearer    ", "Bearer").kind).toBe("malformed");
    expect(parseAuthorization("Bearer a b", "Bearer").kind).toBe("malformed");
    expect(parseAuthorization("Basic abc", "Bearer").kind).toBe("malformed");
    expect(parseAuthorization("Bearerabc", "Bearer").kind).toBe("malformed");
  });
});

describe("decodeBasicCredential", () => {
  it("splits at the first colon, keeping colons in the password", () => {
    expect(decodeBasicCredential(base64("ada:pa:ss"))).toEqual({ username: "ada", password: "pa:ss" });
    expect(decodeBasicCredential(base64("jürgen:größe"))).toEqual({ username: "jürgen", password: "größe" });
  });

  it("refuses garbage base64, missing colon, empty username, bad UTF-8 and control characters", () => {
    expect(decodeBasicCredential("!!!not-base64!!!")).toBeUndefined();
    expect(decodeBasicCredential("abc")).toBeUndefined();
    expect(decodeBasicCredential(base64("nocolon"))).toBeUndefined();
    expect(decodeBasicCredential(base64(":password"))).toBeUndefined();
    expect(decodeBasicCredential(Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString("base64"))).toBeUndefined();
    expect(decodeBasicCredential(base64("ada:pass\nword"))).toBeUndefined();
  });
});

describe("readCookie", () => {
  it("finds one cookie by exact name", () => {
    expect(readCookie("a=1; session=abc%20d; sessionx=2", "session")).toBe("abc d");
    expect(readCookie("a=1", "session")).toBeUndefined();
    expect(readCookie(undefined, "session")).toBeUndefined();
    expect(readCookie("session=%E0%A4%A", "session")).toBe("%E0%A4%A");
  });
});
