import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthErrorCode, AuthRateLimitError, UserNotFoundError } from "../../errors/auth-errors.js";
import { type AdminApiFake, startAdminApiFake } from "../../testing/admin-api-fake.js";
import { adminJson } from "./admin-http.js";
import { cachedToken } from "./admin-token-cache.js";

let fake: AdminApiFake;
let hangs: Array<() => void> = [];

beforeAll(async () => {
  fake = await startAdminApiFake(async (request) => {
    const status = Number(request.path.slice(1));
    if (request.path === "/hang") await new Promise<void>((resolve) => hangs.push(resolve));
    if (request.path === "/echo") return { json: { method: request.method, body: request.body, type: request.headers["content-type"] } };
    if (request.path === "/empty") return { status: 204 };
    return Number.isFinite(status) ? { status, json: { message: "secret-free vendor text" }, headers: { "retry-after": "7" } } : undefined;
  });
});
afterAll(async () => {
  for (const release of hangs) release();
  hangs = [];
  await fake.close();
});

describe("adminJson", () => {
  it("sends JSON and forms with their content types, and reads an empty answer as undefined", async () => {
    expect(await adminJson("x", `${fake.origin}/echo`, { method: "POST", json: { a: 1 }, timeoutMs: 2000 })).toEqual({
      method: "POST",
      body: { a: 1 },
      type: "application/json",
    });
    expect(await adminJson("x", `${fake.origin}/echo`, { method: "POST", form: { a: "1" }, timeoutMs: 2000 })).toMatchObject({
      body: { a: "1" },
      type: "application/x-www-form-urlencoded",
    });
    expect(await adminJson("x", `${fake.origin}/empty`, { method: "DELETE", timeoutMs: 2000 })).toBeUndefined();
  });

  it("maps 404 to UserNotFoundError, 429 to the rate limit error with Retry-After, 502-504 to unavailable, others to the provider error", async () => {
    await expect(adminJson("x", `${fake.origin}/404`, { timeoutMs: 2000 })).rejects.toBeInstanceOf(UserNotFoundError);
    const limited = await adminJson("x", `${fake.origin}/429`, { timeoutMs: 2000 }).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(AuthRateLimitError);
    expect(limited).toMatchObject({ retryAfterMs: 7000 });
    for (const status of [502, 503, 504]) {
      await expect(adminJson("x", `${fake.origin}/${status}`, { timeoutMs: 2000 })).rejects.toMatchObject({
        code: AuthErrorCode.PROVIDER_UNAVAILABLE,
        statusCode: 503,
      });
    }
    for (const status of [400, 401, 403, 500]) {
      const error = await adminJson("x", `${fake.origin}/${status}?email=ada@example.com`, { timeoutMs: 2000 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, statusCode: 502, details: { status } });
      // The query (an email, a filter) stays out of the message.
      expect((error as Error).message).toBe(`Identity provider admin API answered ${status} (GET /${status})`);
    }
  });

  it("a request without an answer within timeoutMs is AUTH_PROVIDER_UNAVAILABLE", async () => {
    const started = Date.now();
    await expect(adminJson("x", `${fake.origin}/hang`, { timeoutMs: 200 })).rejects.toMatchObject({
      code: AuthErrorCode.PROVIDER_UNAVAILABLE,
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("cachedToken", () => {
  it("reuses a token until a minute before it expires, shares one fetch between callers, and retries after a failure", async () => {
    let clock = 0;
    let issued = 0;
    let fail = false;
    const token = cachedToken(
      async () => {
        if (fail) throw new Error("token endpoint down");
        return { accessToken: `t${++issued}`, expiresInSec: 3600 };
      },
      () => clock,
    );
    expect(await Promise.all([token(), token(), token()])).toEqual(["t1", "t1", "t1"]);
    clock = 3_539_000;
    expect(await token()).toBe("t1");
    clock = 3_541_000;
    fail = true;
    await expect(token()).rejects.toThrow("token endpoint down");
    fail = false;
    expect(await token()).toBe("t2");
    expect(issued).toBe(2);
  });
});
