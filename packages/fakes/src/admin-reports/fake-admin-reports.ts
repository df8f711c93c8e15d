import type { ServerResponse } from "node:http";
import { type FakeServer, type RecordedRequest, sendJson, startFakeServer } from "../fake-server.js";
import { type BilledUsage, type ReportBucket, bucketsOf, usageGroups } from "./report-buckets.js";

export type { BilledUsage } from "./report-buckets.js";

/** Which vendor's Admin API the fake speaks. */
export type AdminReportVendor = "anthropic" | "openai";

export interface FakeAdminReportsOptions {
  vendor: AdminReportVendor;
  /** The only credential answered (Anthropic `x-api-key`, OpenAI Bearer); others get 401. */
  adminKey: string;
}

/** A vendor's usage and cost reports on loopback, paged and rate-limited like the real ones. */
export interface FakeAdminReports extends FakeServer {
  vendor: AdminReportVendor;
  /** What the vendor billed: every call the reports sum. */
  ledger: BilledUsage[];
  /** Adds one billed call (traffic that went through Conduit, or behind its back). */
  bill(usage: BilledUsage): void;
  /** Buckets per page at most, below the request's `limit` (default: the vendor's maximum, 31). */
  maxBucketsPerPage: number;
  /** Every n-th report request is refused with 429 and `retry-after` (0: never). */
  rateLimitEvery: number;
  retryAfterSeconds: number;
  /** 429s sent so far. */
  rateLimited: number;
}

const DAY_MS = 86_400_000;

function vendorError(response: ServerResponse, vendor: AdminReportVendor, status: number, type: string, message: string, headers = {}) {
  const body = vendor === "anthropic" ? { type: "error", error: { type, message } } : { error: { message, type, param: null, code: type } };
  sendJson(response, status, body, headers);
}

/** A query's list parameter, written `name[]=a&name[]=b` or `name=a&name=b`. */
function listParameter(url: URL, name: string): string[] {
  return [...url.searchParams.getAll(`${name}[]`), ...url.searchParams.getAll(name)];
}

/** The page token the fake hands out: the start of the next bucket, opaque to the client. */
const pageToken = (startMs: number) => `page_${Buffer.from(new Date(startMs).toISOString()).toString("base64url")}`;
const pageStart = (token: string) => Date.parse(Buffer.from(token.replace(/^page_/, ""), "base64url").toString("utf8"));

interface RangeQuery {
  startMs: number;
  endMs: number;
  limit: number;
}

function rangeOf(url: URL, vendor: AdminReportVendor, maxBuckets: number): RangeQuery | string {
  const startText = url.searchParams.get(vendor === "anthropic" ? "starting_at" : "start_time");
  const endText = url.searchParams.get(vendor === "anthropic" ? "ending_at" : "end_time");
  if (!startText) return `${vendor === "anthropic" ? "starting_at" : "start_time"} is required`;
  const parse = (text: string) => (vendor === "anthropic" ? Date.parse(text) : Number(text) * 1000);
  const startMs = Math.floor(parse(startText) / DAY_MS) * DAY_MS;
  if (Number.isNaN(startMs)) return "invalid start";
  const requestedLimit = Number(url.searchParams.get("limit") ?? 7);
  const endMs = endText ? parse(endText) : startMs + requestedLimit * DAY_MS;
  if (Number.isNaN(endMs) || endMs <= startMs) return "invalid end";
  const page = url.searchParams.get("page");
  const from = page ? pageStart(page) : startMs;
  if (Number.isNaN(from)) return "invalid page token";
  return { startMs: from, endMs, limit: Math.max(1, Math.min(requestedLimit, 31, maxBuckets)) };
}

function pageOf(buckets: ReportBucket[], range: RangeQuery) {
  const dayCount = Math.ceil((range.endMs - range.startMs) / DAY_MS);
  const shown = buckets.slice(0, Math.min(range.limit, dayCount));
  const more = dayCount > shown.length;
  return { data: shown, has_more: more, next_page: more ? pageToken(range.startMs + shown.length * DAY_MS) : null };
}

function answerReport(request: RecordedRequest, response: ServerResponse, fake: FakeAdminReports, options: FakeAdminReportsOptions) {
  const url = new URL(request.path, "http://fake");
  const anthropic = fake.vendor === "anthropic";
  const usagePath = anthropic ? "/v1/organizations/usage_report/messages" : "/v1/organization/usage/completions";
  const costPath = anthropic ? "/v1/organizations/cost_report" : "/v1/organization/costs";
  if (request.method !== "GET" || (url.pathname !== usagePath && url.pathname !== costPath))
    return vendorError(response, fake.vendor, 404, "not_found_error", `no route ${request.method} ${url.pathname}`);
  const credential = anthropic ? request.headers["x-api-key"] : /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  if (credential !== options.adminKey) return vendorError(response, fake.vendor, 401, "authentication_error", "invalid admin key");
  if (anthropic && !request.headers["anthropic-version"])
    return vendorError(response, fake.vendor, 400, "invalid_request_error", "anthropic-version header is required");
  const count = fake.requests.filter((seen) => !seen.path.startsWith("/__")).length;
  if (fake.rateLimitEvery > 0 && count % fake.rateLimitEvery === 0) {
    fake.rateLimited += 1;
    return vendorError(response, fake.vendor, 429, "rate_limit_error", "rate limited", { "retry-after": String(fake.retryAfterSeconds) });
  }
  const range = rangeOf(url, fake.vendor, fake.maxBucketsPerPage);
  if (typeof range === "string") return vendorError(response, fake.vendor, 400, "invalid_request_error", range);
  const groups = usageGroups(url.pathname === costPath ? ["model"] : listParameter(url, "group_by"));
  const buckets = bucketsOf(fake.ledger, fake.vendor, url.pathname === costPath ? "cost" : "usage", range.startMs, range.endMs, groups);
  sendJson(response, 200, anthropic ? pageOf(buckets, range) : { object: "page", ...pageOf(buckets, range) });
}

/**
 * A local stand-in for a vendor's Admin API reports — Anthropic's `GET /v1/organizations/usage_report/messages`
 * and `/cost_report` (admin key in `x-api-key`, `anthropic-version` required), or OpenAI's
 * `GET /v1/organization/usage/completions` and `/costs` (admin key as Bearer) — over the calls in
 * `ledger`: one bucket per UTC day (empty days included), `limit` buckets a page with
 * `has_more`/`next_page`, grouping by model and API key, every `rateLimitEvery`-th request a 429.
 *
 * @example
 * const reports = await startFakeAdminReports({ vendor: "anthropic", adminKey: "sk-ant-admin01-test" });
 * reports.bill({ time: "2026-12-01T10:00:00Z", model: "claude-sonnet-4-5", input: 10, output: 5, usd: 0.000105 });
 */
export async function startFakeAdminReports(options: FakeAdminReportsOptions): Promise<FakeAdminReports> {
  const server = await startFakeServer((request, response) => answerReport(request, response, fake, options));
  const fake: FakeAdminReports = Object.assign(server, {
    vendor: options.vendor,
    ledger: [] as BilledUsage[],
    bill: (usage: BilledUsage) => void fake.ledger.push(usage),
    maxBucketsPerPage: 31,
    rateLimitEvery: 0,
    retryAfterSeconds: 1,
    rateLimited: 0,
  });
  return fake;
}
