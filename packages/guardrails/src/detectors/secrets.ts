import type { Detector } from "./detector.js";

/** The credentials a `secrets` rule can look for. */
export const SECRET_TYPES = [
  "aws-access-key",
  "aws-secret-key",
  "github-token",
  "gitlab-token",
  "slack-token",
  "anthropic-api-key",
  "openai-api-key",
  "google-api-key",
  "conduit-key",
  "private-key",
  "jwt",
] as const;
export type SecretType = (typeof SECRET_TYPES)[number];

const maskOf = (type: SecretType) => `[${type.toUpperCase().replace(/-/g, "_")}]`;

// Shapes as the vendors document them; a trailing (?![\w-]) keeps a longer token whole.
const secretPatterns: Record<SecretType, Omit<Detector, "entity" | "mask">> = {
  "aws-access-key": {
    hint: /A[KBCS][IC]A/,
    hintChars: "A",
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  },
  // A secret key is 40 base64 characters: found only next to a name that says what it is.
  "aws-secret-key": {
    hint: /aws/i,
    hintChars: "wW",
    pattern: /aws.{0,20}?(?:secret|private).{0,20}?["'`:= ]{1,4}(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dgi,
    group: "secret",
  },
  "github-token": {
    hint: /gh[pousr]_|github_pat_/,
    hintChars: "_",
    pattern: /(?<![\w-])(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})(?![\w-])/g,
  },
  "gitlab-token": {
    hint: /gl[a-z]{2,3}-/,
    hintChars: "-",
    pattern: /(?<![\w-])gl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_-]{20,64}(?![\w-])/g,
  },
  "slack-token": { hint: /xox|xapp/, hintChars: "x", pattern: /(?<![\w-])(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,250}(?![\w-])/g },
  "anthropic-api-key": {
    hint: /sk-ant-/,
    hintChars: "-",
    pattern: /(?<![\w-])sk-ant-(?:api|admin|oat|ort)\d{2}-[A-Za-z0-9_-]{20,200}(?![\w-])/g,
  },
  "openai-api-key": {
    hint: /sk-/,
    hintChars: "-",
    pattern: /(?<![\w-])sk-(?!ant-|conduit-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,200}(?![\w-])/g,
  },
  "google-api-key": { hint: /AIza/, hintChars: "A", pattern: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g },
  "conduit-key": { hint: /sk-conduit-/, hintChars: "-", pattern: /(?<![\w-])sk-conduit-[A-Za-z0-9_+/=-]{16,128}(?![\w+/=-])/g },
  "private-key": {
    hint: /-----BEGIN/,
    hintChars: "-",
    pattern: /-----BEGIN[A-Z ]{0,20}PRIVATE KEY( BLOCK)?-----/g,
    region: { close: /-----END[A-Z ]{0,20}PRIVATE KEY( BLOCK)?-----/g },
  },
  jwt: { hint: /eyJ/, hintChars: "J", pattern: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,}(?![\w-])/g },
};

/** The detectors of the named credential types (all of them when none are named). */
export function secretDetectorsOf(types: readonly SecretType[] = SECRET_TYPES): Detector[] {
  return types.map((type) => ({ entity: type, mask: maskOf(type), ...secretPatterns[type] }));
}
