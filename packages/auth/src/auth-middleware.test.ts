import { afterEach, describe, expect, it } from "vitest";
import { createPipeline } from "../test/pipeline.js";
import { getAuthContext } from "./auth-context.js";
import { createAuthMiddleware } from "./auth-middleware.js";
import type { AuthMiddlewareOptions } from "./auth-types.js";

const SECRET = "s3cret-token";
const validate = (token: string) => (token === SECRET ? { id: "u1", roles: ["admin"] } : null);
const pipeline = (options: Partial<AuthMiddlewareOptions> = {}, routes?: string[]) =>
  createPipeline([createAuthMiddleware({ type: "bearer", validate, ...options })], routes);

describe("createAuthMiddleware", () => {
  const originalEnv = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = originalEnv;
  });

  it("refuses a request without credentials with 401 AUTH_REQUIRED, the message and a challenge", async () => {
    const response = await pipeline({ errorMessage: "Log in first" })({ url: "/api/private" });
    expect(response.status).toBe(401);
    expect(response.json.error).toMatchObject({ code: "AUTH_REQUIRED", message: "Log in first", category: "AUTHENTICATION" });
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="conduit"');
  });

  it("refuses an unknown token with 401 AUTH_INVALID and never echoes it", async () => {
    const response = await pipeline()({ url: "/api/private", headers: { authorization: "Bearer wrong-token-value" } });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe("AUTH_INVALID");
    expect(response.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect(JSON.stringify(response)).not.toContain("wrong-token-value");
  });

  it("puts a normalized user on ctx.user and the record on getAuthContext", async () => {
    let record: unknown;
    const run = createPipeline(
      [
        createAuthMiddleware({
          type: "bearer",
          validate: async (token) => (token === SECRET ? { id: "u1", metadata: { tenant: "t" } } : null),
        }),
      ],
      ["/api/private"],
      (ctx) => {
        record = getAuthContext(ctx);
        return ctx.user;
      },
    );
    const response = await run({ url: "/api/private", headers: { authorization: `bearer ${SECRET}` } });
    expect(response.status).toBe(200);
    expect(response.json.data).toEqual({ id: "u1", roles: [], permissions: [], metadata: { tenant: "t" } });
    expect(record).toMatchObject({ type: "bearer", token: SECRET, claims: { tenant: "t" } });
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("database down");
      },
    ],
    ["rejects", () => Promise.reject(new Error("database down"))],
    ["returns a user without id", () => ({ id: "" })],
    ["returns a non-object", () => "yes" as never],
  ])("fails closed with 401 when the validator %s", async (_, failing) => {
    const errors: unknown[] = [];
    const response = await pipeline({ validate: failing, onValidatorError: (error) => errors.push(error) })({
      url: "/api/private",
      headers: { authorization: `Bearer ${SECRET}` },
    });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe("AUTH_INVALID");
  });

  it("fails closed with 401 when the validator outlives timeoutMs", async () => {
    const started = performance.now();
    const response = await pipeline({ timeoutMs: 50, validate: () => new Promise(() => undefined) })({
      url: "/api/private",
      headers: { authorization: `Bearer ${SECRET}` },
    });
    expect(response.status).toBe(401);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("does not turn a handler's own error into 401", async () => {
    const run = createPipeline([createAuthMiddleware({ type: "bearer", validate })], ["/api/private"], () => {
      throw new Error("handler bug");
    });
    const response = await run({ url: "/api/private", headers: { authorization: `Bearer ${SECRET}` } });
    expect(response.status).toBe(500);
  });

  it("reads header, then cookie, then query, then the custom extractor", async () => {
    const seen: string[] = [];
    const run = pipeline({
      cookieName: "session",
      queryParam: "access_token",
      extractToken: () => "from-extractor",
      validate: (token) => {
        seen.push(token);
        return { id: token };
      },
    });
    await run({
      url: "/api/private?access_token=from-query",
      headers: { authorization: "Bearer from-header", cookie: "session=from-cookie" },
    });
    await run({ url: "/api/private?access_token=from-query", headers: { cookie: "session=from-cookie" } });
    await run({ url: "/api/private?access_token=from-query" });
    await run({ url: "/api/private" });
    expect(seen).toEqual(["from-header", "from-cookie", "from-query", "from-extractor"]);
  });

  it("treats malformed headers and oversized tokens as invalid without calling the validator", async () => {
    let calls = 0;
    const run = pipeline({
      maxTokenLength: 64,
      validate: () => {
        calls++;
        return null;
      },
    });
    for (const authorization of ["Bearer", "Bearer  ", "Basic abc", "Bearer a b", `Bearer ${"x".repeat(65)}`]) {
      const response = await run({ url: "/api/private", headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.json.error.code).toBe("AUTH_INVALID");
    }
    expect(calls).toBe(0);
  });

  it("honors the dev playground header only under NODE_ENV=development (read at startup), from loopback, without a proxy", async () => {
    const request = { url: "/api/private", headers: { "x-dev-playground": "true" } };
    for (const environment of [undefined, "test", "staging", "production"]) {
      if (environment === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = environment;
      expect((await pipeline()(request)).status, String(environment)).toBe(401);
    }
    process.env.NODE_ENV = "development";
    const run = pipeline();
    expect((await run(request)).status).toBe(200);
    expect((await run({ ...request, clientAddress: "::ffff:127.0.0.1" })).status).toBe(200);
    expect((await run({ ...request, clientAddress: "10.0.0.5" })).status).toBe(401);
    expect((await run({ url: "/api/private", headers: { "x-dev-playground": "true", "x-forwarded-for": "127.0.0.1" } })).status).toBe(401);
    expect((await run({ url: "/api/private", headers: { "x-dev-playground": "1" } })).status).toBe(401);
    expect((await pipeline({ skipDevPlayground: false })(request)).status).toBe(401);
    // Enabled at startup only; a process switched to production since never honors it.
    process.env.NODE_ENV = "test";
    expect((await run(request)).status).toBe(200);
    expect((await pipeline()(request)).status).toBe(401);
    process.env.NODE_ENV = "production";
    expect((await run(request)).status).toBe(401);
    // The explicit switch, still never in production.
    expect((await pipeline({ devPlayground: true })(request)).status).toBe(401);
    process.env.NODE_ENV = "test";
    expect((await pipeline({ devPlayground: true })(request)).status).toBe(200);
  });

  it("lets a CORS preflight reach the core's OPTIONS answer without credentials", async () => {
    const response = await pipeline()({ method: "OPTIONS", url: "/api/private" });
    expect(response.status).toBe(204);
    expect(response.headers.allow).toContain("GET");
    expect((await pipeline()({ method: "POST", url: "/api/private" })).status).toBe(401);
  });

  it("proceeds without a user when optional", async () => {
    const run = pipeline({ optional: true });
    expect((await run({ url: "/api/private" })).json.data).toEqual({ user: null });
    expect((await run({ url: "/api/private", headers: { authorization: "Bearer nope" } })).json.data).toEqual({ user: null });
    expect((await run({ url: "/api/private", headers: { authorization: `Bearer ${SECRET}` } })).json.data.user.id).toBe("u1");
  });

  it("skips public paths, exact or by prefix, with and without basePath", async () => {
    const run = pipeline({ skipPaths: ["/public/*", "/api/open"] }, ["/api/private", "/api/public/docs", "/api/open"]);
    expect((await run({ url: "/api/public/docs" })).status).toBe(200);
    expect((await run({ url: "/api/open" })).status).toBe(200);
    expect((await run({ url: "/api/private" })).status).toBe(401);
  });

  it("uses x-api-key for api-key and passes the decoded user:password for basic", async () => {
    const apiKey = pipeline({ type: "api-key", validate: (key) => (key === "k1" ? { id: "svc" } : null) });
    expect((await apiKey({ url: "/api/private", headers: { "x-api-key": "k1" } })).status).toBe(200);
    expect((await apiKey({ url: "/api/private", headers: { authorization: "Bearer k1" } })).headers["www-authenticate"]).toContain(
      "ApiKey",
    );
    const basic = pipeline({ type: "basic", validate: (credential) => (credential === "ada:pw" ? { id: "ada" } : null) });
    const encoded = Buffer.from("ada:pw").toString("base64");
    expect((await basic({ url: "/api/private", headers: { authorization: `Basic ${encoded}` } })).status).toBe(200);
    expect((await basic({ url: "/api/private", headers: { authorization: "Basic %%%" } })).status).toBe(401);
  });
});
