import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { authenticateUpgrade } from "./upgrade-auth.js";

const request = (headers: Record<string, string>, url = "/ws") => ({ headers, url }) as unknown as IncomingMessage;
const validate = (token: string) => (token === "good" || token === "u:p" ? { id: "u1" } : null);

describe("authenticateUpgrade", () => {
  it("none accepts everyone", async () => {
    expect(await authenticateUpgrade(request({}), { strategy: "none" })).toEqual({ ok: true });
  });

  it("bearer reads the Authorization header, and the query only when configured", async () => {
    expect(await authenticateUpgrade(request({ authorization: "Bearer good" }), { strategy: "bearer", validate })).toEqual({
      ok: true,
      user: { id: "u1" },
    });
    expect((await authenticateUpgrade(request({ authorization: "Bearer bad" }), { strategy: "bearer", validate })).ok).toBe(false);
    expect((await authenticateUpgrade(request({}, "/ws?token=good"), { strategy: "bearer", validate })).ok).toBe(false);
    expect((await authenticateUpgrade(request({}, "/ws?token=good"), { strategy: "bearer", validate, queryParam: "token" })).ok).toBe(true);
  });

  it("reads a cookie and a query parameter by the same rule as HTTP (server-core's readCredential)", async () => {
    const rule = { strategy: "bearer" as const, validate, cookieName: "conduit_token", queryParam: "access_token" };
    expect((await authenticateUpgrade(request({ cookie: "a=b; conduit_token=good" }), rule)).ok).toBe(true);
    expect((await authenticateUpgrade(request({}, "/ws?access_token=good"), rule)).ok).toBe(true);
    expect((await authenticateUpgrade(request({ cookie: "conduit_token=good" }), { strategy: "bearer", validate })).ok).toBe(false);
    // A malformed header is not replaced by the query parameter.
    expect((await authenticateUpgrade(request({ authorization: "Bearer" }, "/ws?access_token=good"), rule)).ok).toBe(false);
  });

  it("apiKey reads its header; basic decodes user:password; custom uses extractToken", async () => {
    expect((await authenticateUpgrade(request({ "x-api-key": "good" }), { strategy: "apiKey", validate })).ok).toBe(true);
    expect((await authenticateUpgrade(request({ "x-key": "good" }), { strategy: "apiKey", headerName: "X-Key", validate })).ok).toBe(true);
    const basic = `Basic ${Buffer.from("u:p").toString("base64")}`;
    expect((await authenticateUpgrade(request({ authorization: basic }), { strategy: "basic", validate })).ok).toBe(true);
    expect((await authenticateUpgrade(request({ authorization: "Basic !!!" }), { strategy: "basic", validate })).ok).toBe(false);
    const custom = {
      strategy: "custom" as const,
      validate,
      extractToken: (incoming: IncomingMessage) => String(incoming.headers["x-session"] ?? ""),
    };
    expect((await authenticateUpgrade(request({ "x-session": "good" }), custom)).ok).toBe(true);
  });

  it("refuses when the validator throws, is missing or times out", async () => {
    const throwing = () => {
      throw new Error("down");
    };
    expect((await authenticateUpgrade(request({ authorization: "Bearer good" }), { strategy: "bearer", validate: throwing })).ok).toBe(
      false,
    );
    expect((await authenticateUpgrade(request({ authorization: "Bearer good" }), { strategy: "bearer" })).ok).toBe(false);
    const slow = () => new Promise<{ id: string }>((resolve) => setTimeout(() => resolve({ id: "late" }), 300));
    expect(
      await authenticateUpgrade(request({ authorization: "Bearer good" }), { strategy: "bearer", validate: slow, timeoutMs: 20 }),
    ).toEqual({
      ok: false,
      reason: "Authentication timed out",
    });
  });
});
