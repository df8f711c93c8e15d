import { createHash, createHmac } from "node:crypto";

/** AWS credentials for Signature Version 4. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS) carry a session token, sent as `x-amz-security-token`. */
  sessionToken?: string | undefined;
}

/** One request to sign: the headers given are signed too (names lowercased). */
export interface SignableRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
}

const sha256Hex = (data: string): string => createHash("sha256").update(data, "utf8").digest("hex");
const hmac = (key: Buffer | string, data: string): Buffer => createHmac("sha256", key).update(data, "utf8").digest();

/** RFC 3986 encoding as SigV4 wants it (`encodeURIComponent` leaves `!'()*` alone). */
const uriEncode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Signs a request with AWS Signature Version 4 (HMAC-SHA256): returns the headers to send —
 * the given ones plus `host`, `x-amz-date`, `x-amz-security-token` when present, and
 * `authorization`. `now` is injectable for AWS's published test vectors.
 *
 * @example
 * const headers = signAwsRequest({ method: "POST", url: "https://cognito-idp.eu-west-1.amazonaws.com/", headers: { "content-type": "application/x-amz-json-1.1" },
 *   body, region: "eu-west-1", service: "cognito-idp" }, credentials);
 */
export function signAwsRequest(request: SignableRequest, credentials: AwsCredentials, now: Date = new Date()): Record<string, string> {
  const url = new URL(request.url);
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = { host: url.host, "x-amz-date": amzDate };
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  if (credentials.sessionToken) headers["x-amz-security-token"] = credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${String(headers[name]).trim().replace(/\s+/g, " ")}\n`).join("");
  const signedHeaders = names.join(";");
  const query = [...url.searchParams]
    .map(([key, value]) => [uriEncode(key), uriEncode(value)])
    .sort(([a = "", b = ""], [c = "", d = ""]) => (a === c ? b.localeCompare(d) : a.localeCompare(c)))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
  const path =
    url.pathname
      .split("/")
      .map((segment) => uriEncode(decodeURIComponent(segment)))
      .join("/") || "/";
  const canonicalRequest = [request.method, path, query, canonicalHeaders, signedHeaders, sha256Hex(request.body)].join("\n");
  const scope = `${day}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), request.region), request.service), "aws4_request");
  const signature = createHmac("sha256", signingKey).update(stringToSign, "utf8").digest("hex");
  const { host: _host, ...sent } = headers;
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
