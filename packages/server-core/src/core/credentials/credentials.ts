/** Outcome of reading a credential: absent, present, or present but unusable. */
export type Extraction = { kind: "none" } | { kind: "token"; token: string } | { kind: "malformed" };

export const NONE: Extraction = { kind: "none" };
export const MALFORMED: Extraction = { kind: "malformed" };

const SCHEME = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?:[ \t]+(.*))?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Splits `Scheme credentials`; the scheme is case-insensitive (RFC 9110), the credential
 * must be a single token.
 *
 * @example
 * parseAuthorization("bearer abc", "Bearer"); // { kind: "token", token: "abc" }
 * parseAuthorization("Bearer", "Bearer"); // { kind: "malformed" }
 */
export function parseAuthorization(header: string, scheme: string): Extraction {
  const match = SCHEME.exec(header.trim());
  if (!match || match[1]?.toLowerCase() !== scheme.toLowerCase()) return MALFORMED;
  const credential = (match[2] ?? "").trim();
  if (credential === "" || /\s/.test(credential)) return MALFORMED;
  return { kind: "token", token: credential };
}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, surrounding
 * space trimmed), or undefined when the header is absent, of another scheme, or empty.
 *
 * @example
 * parseBearer(ctx.header("authorization")); // "sk-…" or undefined
 */
export function parseBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match?.[1]?.trim() || undefined;
}

/**
 * Decodes a Basic credential into username and password, strictly: canonical base64,
 * valid UTF-8, a colon, a non-empty username. Anything else is `undefined`.
 *
 * @example
 * decodeBasicCredential(Buffer.from("ada:secret").toString("base64")); // { username: "ada", password: "secret" }
 */
export function decodeBasicCredential(encoded: string): { username: string; password: string } | undefined {
  if (!BASE64.test(encoded)) return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(encoded, "base64"));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  // Control characters have no place in credentials (RFC 7617) and would only reach validators as surprises.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point of the check
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * One cookie's value from a `Cookie` header, percent-decoded when possible.
 *
 * @example
 * readCookie("theme=dark; session=abc", "session"); // "abc"
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator === -1 || part.slice(0, separator).trim() !== name) continue;
    const value = part
      .slice(separator + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}
