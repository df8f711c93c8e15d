import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { RecordedRequest } from "../fake-server.js";

/** The credentials a fake AWS service accepts. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

const hmac = (key: Buffer | string, value: string) => createHmac("sha256", key).update(value, "utf8").digest();
const sha256 = (value: Buffer | string) => createHash("sha256").update(value).digest("hex");
// RFC 3986 unreserved characters stay; everything else is percent-encoded, as SigV4 requires.
const encode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

function canonicalQuery(search: URLSearchParams): string {
  return [...search.entries()]
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .sort()
    .join("&");
}

/**
 * Checks a request's AWS Signature Version 4 (`Authorization: AWS4-HMAC-SHA256 Credential=…,
 * SignedHeaders=…, Signature=…`) the way AWS does: the canonical request (the path encoded once
 * more, as every service but S3 expects), the string to sign and the derived key, compared in
 * constant time. Returns the problem, or undefined when the signature is right.
 */
export function signatureProblem(request: RecordedRequest, credentials: AwsCredentials, service: string): string | undefined {
  const authorization = String(request.headers.authorization ?? "");
  const parts =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!parts) return "missing or malformed SigV4 Authorization header";
  const [, accessKeyId, date, region, signedService, signedHeaders, signature] = parts as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) return "The security token included in the request is invalid.";
  if (signedService !== service) return `signed for service ${signedService}, not ${service}`;
  const amzDate = String(request.headers["x-amz-date"] ?? "");
  if (!amzDate.startsWith(date as string)) return "x-amz-date does not match the credential scope";
  const url = new URL(request.path, "http://fake");
  const canonicalPath = url.pathname
    .split("/")
    .map((segment) => encode(segment))
    .join("/");
  const headerNames = (signedHeaders as string).split(";");
  if (!headerNames.includes("host") || !headerNames.includes("x-amz-date")) return "host and x-amz-date must be signed";
  const canonicalHeaders = headerNames
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? "")
          .trim()
          .replace(/\s+/g, " ")}\n`,
    )
    .join("");
  const payloadHash = sha256(request.raw);
  const claimedHash = request.headers["x-amz-content-sha256"];
  if (claimedHash !== undefined && claimedHash !== payloadHash) return "x-amz-content-sha256 does not match the body";
  const canonicalRequest = [
    request.method,
    canonicalPath,
    canonicalQuery(url.searchParams),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date as string), region as string), service), "aws4_request");
  const expected = hmac(key, stringToSign);
  const given = Buffer.from(signature as string, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return "The request signature we calculated does not match the signature you provided.";
  return undefined;
}
