import { errors } from "jose";
import { describe, expect, it } from "vitest";
import { toAuthError } from "./jose-errors.js";

describe("toAuthError", () => {
  it("reads undici's `fetch failed` TypeError as the identity provider being unreachable, not as a wrong algorithm", () => {
    const refused = new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    const error = toAuthError(refused, "jwt", "id.example.com");
    expect(error).toMatchObject({ code: "AUTH_PROVIDER_UNAVAILABLE", statusCode: 503, retryAfterMs: 5000, host: "id.example.com" });
    expect(error.message).not.toMatch(/algorithm/);
  });

  it("reads a key set timeout and a key set error answer as unavailable too", () => {
    expect(toAuthError(new errors.JWKSTimeout(), "jwt").code).toBe("AUTH_PROVIDER_UNAVAILABLE");
    expect(toAuthError(new errors.JOSEError("Expected 200 OK from the JSON Web Key Set HTTP response"), "jwt").code).toBe(
      "AUTH_PROVIDER_UNAVAILABLE",
    );
  });

  it("still reads a key of the wrong type (a TypeError without a network cause) as an algorithm mismatch", () => {
    const error = toAuthError(new TypeError('Key for the HS256 algorithm must be of type "secret"'), "jwt");
    expect(error).toMatchObject({ code: "AUTH_INVALID", statusCode: 401, message: "Token algorithm does not match the key" });
  });
});
