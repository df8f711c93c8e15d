import { describe, expect, it } from "vitest";
import { createGuardrails } from "../guardrails.js";

const maskAll = createGuardrails({ rules: [{ name: "pii", kind: "pii", action: "mask" }], default: ["pii"] }).select();

async function masked(text: string): Promise<string> {
  const body = { text };
  await maskAll?.checkJson("request", body);
  return body.text;
}

describe("pii detectors", () => {
  it.each([
    ["write to ada.lovelace+ai@example.co.uk today", "write to [EMAIL] today"],
    ["call +14155552671 now", "call [PHONE] now"],
    ["call +44 20 7946 0958 now", "call [PHONE] now"],
    ["call (415) 555-2671 now", "call [PHONE] now"],
    ["call 415-555-2671 now", "call [PHONE] now"],
    ["ruf 030 1234567 an", "ruf [PHONE] an"],
    ["card 4111 1111 1111 1111 ok", "card [CREDIT_CARD] ok"],
    ["card 4111-1111-1111-1111 ok", "card [CREDIT_CARD] ok"],
    ["card 378282246310005 ok", "card [CREDIT_CARD] ok"],
    ["iban DE89 3704 0044 0532 0130 00 ok", "iban [IBAN] ok"],
    ["iban GB82WEST12345698765432 ok", "iban [IBAN] ok"],
    ["ssn 123-45-6789 ok", "ssn [US_SSN] ok"],
    ["host 192.168.10.1 ok", "host [IP_ADDRESS] ok"],
    ["host 2001:db8::8a2e:370:7334 ok", "host [IP_ADDRESS] ok"],
    ["host fe80::1 ok", "host [IP_ADDRESS] ok"],
  ])("masks %j", async (input, output) => {
    expect(await masked(input)).toBe(output);
  });

  it.each([
    ["not an address: user@localhost"],
    ["a Luhn-invalid number 4111 1111 1111 1112 is not a card"],
    ["an order id 1234567890123 is not a card"],
    ["a bad IBAN checksum DE88 3704 0044 0532 0130 00 is not an IBAN"],
    ["an ssn cannot start with 000: 000-12-3456, nor be 666-12-3456"],
    ["version 1.2.3.4000 and 999.1.1.1 are not IPs"],
    ["the time is 12:30:45"],
    ["a plain count 12345678 or a year 2026"],
    ["a hash deadbeefcafe1234567890 stays"],
  ])("leaves %j", async (input) => {
    expect(await masked(input)).toBe(input);
  });

  it("names the entities a rule looks for, and only those", async () => {
    const emailsOnly = createGuardrails({
      rules: [{ name: "e", kind: "pii", entities: ["email"], action: "mask" }],
      default: ["e"],
    }).select();
    const body = { text: "ada@example.com 4111 1111 1111 1111" };
    const outcome = await emailsOnly?.checkJson("request", body);
    expect(body.text).toBe("[EMAIL] 4111 1111 1111 1111");
    expect(outcome?.hits).toEqual([{ guardrail: "e", kind: "pii", action: "mask", direction: "request", entity: "email" }]);
  });
});
