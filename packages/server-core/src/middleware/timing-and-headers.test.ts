import { describe, expect, it } from "vitest";
import { ServerValidationError } from "../errors/server-errors.js";
import { createSecurityHeadersMiddleware } from "./security-headers.js";
import { createTestApp } from "../testing/test-kit.js";
import { createTimingMiddleware } from "./timing.js";

const routes = [
  { method: "GET" as const, path: "/ok", handler: () => "ok" },
  {
    method: "GET" as const,
    path: "/fail",
    handler: () => {
      throw new ServerValidationError("nope", [{ field: "x", message: "bad" }]);
    },
  },
];

describe("timing middleware", () => {
  it("adds X-Response-Time and Server-Timing on success and on errors", async () => {
    const { request } = createTestApp({ middleware: [createTimingMiddleware()], routes });
    for (const url of ["/api/ok", "/api/fail", "/api/unknown"]) {
      const response = await request({ url });
      expect(response.headers["x-response-time"]).toMatch(/^\d+\.\d{2}ms$/);
      expect(response.headers["server-timing"]).toMatch(/^total;dur=\d+\.\d{2}$/);
    }
  });
});

describe("security headers middleware", () => {
  it("sets the three defaults, also on error responses, and HSTS only over HTTPS", async () => {
    // The loopback peer is the TLS-terminating proxy here: its forwarded headers are believed.
    const { request } = createTestApp({ config: { trustProxy: "loopback" }, middleware: [createSecurityHeadersMiddleware()], routes });
    const response = await request({ url: "/api/fail" });
    expect(response.status).toBe(400);
    expect(response.headers).toMatchObject({
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "strict-origin-when-cross-origin",
    });
    // RFC 6797 §7.2: never over plain HTTP.
    expect(response.headers["strict-transport-security"]).toBeUndefined();
    const cases: Array<[Record<string, string>, boolean]> = [
      [{ "x-forwarded-proto": "https" }, true],
      [{ "x-forwarded-proto": "HTTPS, http" }, true],
      [{ "x-forwarded-proto": "http" }, false],
      [{ "x-forwarded-proto": "http, https" }, false],
      [{ forwarded: "for=192.0.2.1;proto=https;by=203.0.113.9" }, true],
      [{ forwarded: 'proto="https"' }, true],
      [{ forwarded: "for=192.0.2.1;proto=http, for=10.0.0.1;proto=https" }, false],
      [{ forwarded: "for=192.0.2.1;proto=httpsx" }, false],
    ];
    for (const [headers, hsts] of cases) {
      const answer = await request({ url: "/api/fail", headers });
      expect(answer.headers["strict-transport-security"], JSON.stringify(headers)).toBe(hsts ? "max-age=31536000" : undefined);
    }
  });

  it("ignores X-Forwarded-Proto and Forwarded from a peer trustProxy does not believe (the default)", async () => {
    const untrusted = createTestApp({ middleware: [createSecurityHeadersMiddleware()], routes });
    const otherProxy = createTestApp({ config: { trustProxy: ["10.0.0.0/8"] }, middleware: [createSecurityHeadersMiddleware()], routes });
    for (const headers of [{ "x-forwarded-proto": "https" }, { forwarded: "proto=https" }] as Array<Record<string, string>>) {
      expect((await untrusted.request({ url: "/api/fail", headers })).headers["strict-transport-security"]).toBeUndefined();
      expect((await otherProxy.request({ url: "/api/fail", headers })).headers["strict-transport-security"]).toBeUndefined();
      const viaProxy = await otherProxy.request({ url: "/api/fail", headers, clientAddress: "10.1.2.3" });
      expect(viaProxy.headers["strict-transport-security"]).toBe("max-age=31536000");
    }
  });

  it("overrides and disables single headers and adds more", async () => {
    const middleware = createSecurityHeadersMiddleware({
      frameOptions: "SAMEORIGIN",
      strictTransportSecurity: false,
      additional: { "Content-Security-Policy": "default-src 'none'" },
    });
    const { request } = createTestApp({ config: { trustProxy: "loopback" }, middleware: [middleware], routes });
    const response = await request({ url: "/api/ok", headers: { "x-forwarded-proto": "https" } });
    expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(response.headers["strict-transport-security"]).toBeUndefined();
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["content-security-policy"]).toBe("default-src 'none'");
  });
});
