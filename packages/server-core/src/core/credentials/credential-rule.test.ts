import { describe, expect, it } from "vitest";
import { credentialSourceOf, readCredential } from "./credential-rule.js";

const upgrade = (headers: Record<string, string>, url = "/ws") => credentialSourceOf({ headers, url });
const basic = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;

describe("readCredential", () => {
  it("reads header, then cookie, then query parameter, each only when named", () => {
    const rule = { scheme: "bearer" as const, cookieName: "sid", queryParam: "access_token" };
    expect(readCredential(upgrade({ authorization: "Bearer h" }, "/ws?access_token=q"), rule)).toEqual({ kind: "token", token: "h" });
    expect(readCredential(upgrade({ cookie: "a=1; sid=c" }, "/ws?access_token=q"), rule)).toEqual({ kind: "token", token: "c" });
    expect(readCredential(upgrade({}, "/ws?access_token=q"), rule)).toEqual({ kind: "token", token: "q" });
    expect(readCredential(upgrade({}, "/ws?access_token=q"), { scheme: "bearer" })).toEqual({ kind: "none" });
    expect(readCredential(upgrade({ cookie: "sid=c" }), { scheme: "bearer" })).toEqual({ kind: "none" });
  });

  it("never replaces a malformed header by a later source", () => {
    const rule = { scheme: "bearer" as const, queryParam: "access_token" };
    expect(readCredential(upgrade({ authorization: "Bearer" }, "/ws?access_token=q"), rule)).toEqual({ kind: "malformed" });
    expect(
      readCredential(upgrade({ authorization: "Basic !!" }, "/ws?access_token=q"), { scheme: "basic", queryParam: "access_token" }),
    ).toEqual({
      kind: "malformed",
    });
  });

  it("parses by scheme: Basic decoded, a bare token on a dedicated header, the scheme's default header", () => {
    expect(readCredential(upgrade({ authorization: basic("ada:pw") }), { scheme: "basic" })).toEqual({ kind: "token", token: "ada:pw" });
    expect(readCredential(upgrade({ "x-access-token": "t1" }), { scheme: "bearer", headerName: "X-Access-Token" })).toEqual({
      kind: "token",
      token: "t1",
    });
    expect(readCredential(upgrade({ authorization: "t1" }), { scheme: "bearer" })).toEqual({ kind: "malformed" });
    expect(readCredential(upgrade({ "x-api-key": " k1 " }), { scheme: "api-key" })).toEqual({ kind: "token", token: "k1" });
  });

  it("decodes percent-encoded query values and takes the first of repeated ones", () => {
    const rule = { scheme: "bearer" as const, queryParam: "t" };
    expect(readCredential(upgrade({}, "/ws?t=a%2Eb&t=second"), rule)).toEqual({ kind: "token", token: "a.b" });
    expect(readCredential(upgrade({}, "/ws?t="), rule)).toEqual({ kind: "none" });
  });
});
