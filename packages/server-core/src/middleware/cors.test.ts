import { describe, expect, it } from "vitest";
import { createCorsMiddleware } from "./cors.js";
import { createTestApp } from "../testing/test-kit.js";

const routes = [{ method: "POST" as const, path: "/only-post", handler: () => "posted" }];

describe("CORS middleware", () => {
  it("answers a preflight 204 with methods, headers and max-age before routing", async () => {
    const { request } = createTestApp({ middleware: [createCorsMiddleware({ origins: "*", maxAge: 600 })], routes });
    for (const url of ["/api/only-post", "/api/nowhere"]) {
      const response = await request({
        method: "OPTIONS",
        url,
        headers: { origin: "https://a.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
      expect(response.status).toBe(204);
      expect(response.headers["access-control-allow-origin"]).toBe("*");
      expect(response.headers["access-control-allow-methods"]).toContain("POST");
      // No allowedHeaders configured: the requested ones are reflected, and caches told so.
      expect(response.headers["access-control-allow-headers"]).toBe("content-type");
      expect(response.headers.vary).toBe("Access-Control-Request-Headers");
      expect(response.headers["access-control-max-age"]).toBe("600");
    }
  });

  it("echoes an allowed origin with credentials and exposed headers; a disallowed origin gets none", async () => {
    const middleware = createCorsMiddleware({ origins: ["https://app.example"], credentials: true, exposedHeaders: ["X-Request-Id"] });
    const { request } = createTestApp({ middleware: [middleware], routes });
    const allowed = await request({ method: "POST", url: "/api/only-post", headers: { origin: "https://app.example" } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(allowed.headers["access-control-allow-credentials"]).toBe("true");
    expect(allowed.headers["access-control-expose-headers"]).toBe("X-Request-Id");
    expect(allowed.headers.vary).toBe("Origin");
    const denied = await request({ method: "POST", url: "/api/only-post", headers: { origin: "https://evil.example" } });
    expect(denied.status).toBe(200);
    expect(Object.keys(denied.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
    const deniedPreflight = await request({
      method: "OPTIONS",
      url: "/api/only-post",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(deniedPreflight.headers["access-control-allow-origin"]).toBeUndefined();
  });
});
