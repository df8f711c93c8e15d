import { describe, expect, it } from "vitest";
import { signAwsRequest } from "./aws-sigv4.js";

// AWS's Signature Version 4 test suite (aws-sig-v4-test-suite): fixed credentials and time.
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const at = new Date("2015-08-30T12:36:00Z");
const scope = "AKIDEXAMPLE/20150830/us-east-1/service/aws4_request";

describe("AWS Signature Version 4", () => {
  it("matches the suite's get-vanilla signature", () => {
    const headers = signAwsRequest(
      { method: "GET", url: "https://example.amazonaws.com/", headers: {}, body: "", region: "us-east-1", service: "service" },
      credentials,
      at,
    );
    expect(headers.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=${scope}, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
    );
    expect(headers["x-amz-date"]).toBe("20150830T123600Z");
  });

  it("matches the suite's post-vanilla signature", () => {
    const headers = signAwsRequest(
      { method: "POST", url: "https://example.amazonaws.com/", headers: {}, body: "", region: "us-east-1", service: "service" },
      credentials,
      at,
    );
    expect(headers.authorization).toContain("Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
  });

  it("matches the suite's get-vanilla-query-order-key-case signature (sorted query)", () => {
    const headers = signAwsRequest(
      {
        method: "GET",
        url: "https://example.amazonaws.com/?Param2=value2&Param1=value1",
        headers: {},
        body: "",
        region: "us-east-1",
        service: "service",
      },
      credentials,
      at,
    );
    expect(headers.authorization).toContain("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  });

  it("signs the session token of temporary credentials", () => {
    const headers = signAwsRequest(
      { method: "POST", url: "https://example.amazonaws.com/", headers: {}, body: "{}", region: "us-east-1", service: "service" },
      { ...credentials, sessionToken: "session" },
      at,
    );
    expect(headers["x-amz-security-token"]).toBe("session");
    expect(headers.authorization).toContain("SignedHeaders=host;x-amz-date;x-amz-security-token");
  });
});
