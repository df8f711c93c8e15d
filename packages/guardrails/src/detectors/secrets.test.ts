import { describe, expect, it } from "vitest";
import { createGuardrails } from "../guardrails.js";

const set = createGuardrails({ rules: [{ name: "secrets", kind: "secrets", action: "mask" }], default: ["secrets"] }).select();

async function masked(text: string): Promise<string> {
  const body = { text };
  await set?.checkJson("request", body);
  return body.text;
}

const pem = ["-----BEGIN RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA7bq98S1yR0b1kzL", "-----END RSA PRIVATE KEY-----"].join("\n");

const SAMPLE_SECRETS: Record<string, string> = {
  "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
  "github-token": `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`,
  "gitlab-token": "glpat-xYz12345678901234567",
  "slack-token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  "anthropic-api-key": `sk-ant-api03-${"Ab3_".repeat(10)}`,
  "openai-api-key": `sk-proj-${"Zq9-".repeat(10)}`,
  "google-api-key": "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
  "conduit-key": "sk-conduit-3q2wErTy0uIoPaSdFgHjKlZxCvBnM1234567890abcd",
  jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
};

describe("secret detectors", () => {
  it.each(Object.entries(SAMPLE_SECRETS))("masks %s", async (type, secret) => {
    const token = `[${type.toUpperCase().replace(/-/g, "_")}]`;
    expect(await masked(`use ${secret} here`)).toBe(`use ${token} here`);
  });

  it("masks an AWS secret key named as one, and only the value", async () => {
    expect(await masked('aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"')).toBe(
      'aws_secret_access_key = "[AWS_SECRET_KEY]"',
    );
  });

  it("masks a private key block from BEGIN to END", async () => {
    expect(await masked(`key:\n${pem}\ndone`)).toBe("key:\n[PRIVATE_KEY]\ndone");
  });

  it.each([
    ["sk-ant-short"],
    ["a 40-char base64 run without a name wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    ["AKIA lowercase akiaiosfodnn7example"],
    ["a word like risk-assessment-procedure-document"],
    ["ghp_tooshort"],
  ])("leaves %j", async (input) => {
    expect(await masked(input)).toBe(input);
  });

  it("lets `allow` patterns exempt test values", async () => {
    const allowing = createGuardrails({
      rules: [{ name: "s", kind: "secrets", action: "mask", allow: ["AKIA[A-Z0-9]*EXAMPLE"] }],
      default: ["s"],
    }).select();
    const body = { a: "AKIAIOSFODNN7EXAMPLE", b: "AKIAIOSFODNN7ABCDEFG" };
    await allowing?.checkJson("request", body);
    expect(body).toEqual({ a: "AKIAIOSFODNN7EXAMPLE", b: "[AWS_ACCESS_KEY]" });
  });
});
