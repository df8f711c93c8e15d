import { isIPv4, isIPv6 } from "node:net";
import { ibanValid, luhnValid } from "./checksums.js";
import type { Detector } from "./detector.js";

/** The personal data a `pii` rule can look for. */
export const PII_ENTITIES = ["email", "phone", "credit-card", "iban", "us-ssn", "ip-address"] as const;
export type PiiEntity = (typeof PII_ENTITIES)[number];

// Every pattern refuses to start or end inside a longer run of the same characters, so a
// number inside an id or a hash is not taken for a phone or a card.
const piiDetectors: Record<PiiEntity, () => Detector[]> = {
  email: () => [
    {
      entity: "email",
      mask: "[EMAIL]",
      hint: /@/,
      hintChars: "@",
      pattern: /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![\w-])/g,
    },
  ],
  phone: () => [
    // E.164, optionally grouped: +44 20 7946 0958, +14155552671.
    { entity: "phone", mask: "[PHONE]", hint: /\+\d/, hintChars: "+", pattern: /(?<![\w+])\+[1-9](?:[ .-]?\(?\d\)?){6,14}(?![\w])/g },
    // North American: (415) 555-2671, 415-555-2671, 415.555.2671.
    {
      entity: "phone",
      mask: "[PHONE]",
      hint: /\d{3}/,
      hintChars: "0123456789",
      pattern: /(?<![\w(+-]|\d[ .-])(?:\(\d{3}\) ?|\d{3}[.-])\d{3}[.-]\d{4}(?![\w-]|[ .-]\d)/g,
    },
    // National trunk prefix 0, grouped, and not part of a longer grouped number (an IBAN, a card): 020 7946 0958, 06-12345678, 030 1234567.
    {
      entity: "phone",
      mask: "[PHONE]",
      hint: /0\d/,
      hintChars: "0",
      pattern: /(?<![\w+-]|\d[ -])0\d{1,4}[ -]\d{3,4}[ -]?\d{3,4}(?![\w-]|[ -]\d)/g,
    },
  ],
  "credit-card": () => [
    {
      entity: "credit-card",
      mask: "[CREDIT_CARD]",
      hint: /\d/,
      hintChars: "0123456789",
      pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
      validate: luhnValid,
    },
  ],
  iban: () => [
    {
      entity: "iban",
      mask: "[IBAN]",
      hint: /[A-Z]{2}\d{2}/,
      hintChars: "0123456789",
      pattern: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g,
      validate: ibanValid,
    },
  ],
  "us-ssn": () => [
    {
      entity: "us-ssn",
      mask: "[US_SSN]",
      hint: /\d-\d/,
      hintChars: "0123456789",
      pattern: /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/g,
    },
  ],
  "ip-address": () => [
    {
      entity: "ip-address",
      mask: "[IP_ADDRESS]",
      hint: /\d\.\d/,
      hintChars: "0123456789",
      pattern: /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]*\d)/g,
      validate: isIPv4,
    },
    {
      entity: "ip-address",
      mask: "[IP_ADDRESS]",
      hint: /:/,
      hintChars: ":",
      pattern: /(?<![\w:])(?:[0-9A-Fa-f]{1,4}:|:){2,7}(?::|[0-9A-Fa-f]{1,4})(?![\w:])/g,
      validate: isIPv6,
    },
  ],
};

/** The detectors of the named entities (all of them when none are named). */
export function piiDetectorsOf(entities: readonly PiiEntity[] = PII_ENTITIES): Detector[] {
  return entities.flatMap((entity) => piiDetectors[entity]());
}
