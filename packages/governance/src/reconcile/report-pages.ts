import { vendorReportFailed } from "./vendor-report.js";

/** One page of an admin report: Anthropic's and OpenAI's share this envelope. */
export interface ReportPage {
  data: unknown[];
  has_more: boolean;
  next_page: string | null;
}

export interface ReportFetchOptions {
  fetch?: typeof fetch;
  /** Retries of a 429 or 5xx answer, each after the vendor's `retry-after` (default 5). */
  maxRetries?: number;
  /** The longest wait honoured for one retry (default 60 s); a longer `retry-after` fails the read. */
  maxRetryWaitMs?: number;
  /** The wait when a 429 or 5xx names none (default 1 s, doubled each time). */
  baseRetryWaitMs?: number;
}

/** Far past any real range (a year of daily buckets is 12 pages): a vendor that pages forever is a failure. */
const MAX_PAGES = 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `retry-after` in seconds or as an HTTP date, in milliseconds; undefined when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

async function pageOnce(provider: string, url: URL, headers: Record<string, string>, options: ReportFetchOptions): Promise<ReportPage> {
  const call = options.fetch ?? fetch;
  const maxRetries = options.maxRetries ?? 5;
  let fallbackWait = options.baseRetryWaitMs ?? 1_000;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await call(url, { headers, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      if (attempt >= maxRetries) throw vendorReportFailed(provider, `unreachable (${(error as Error).message})`);
      await sleep(fallbackWait);
      fallbackWait *= 2;
      continue;
    }
    if (response.ok) {
      const page = (await response.json().catch(() => undefined)) as Partial<ReportPage> | undefined;
      if (!page || !Array.isArray(page.data) || typeof page.has_more !== "boolean")
        throw vendorReportFailed(provider, `answered ${url.pathname} with something other than a report page`);
      return { data: page.data, has_more: page.has_more, next_page: page.next_page ?? null };
    }
    const retriable = response.status === 429 || response.status >= 500;
    const wait = retryAfterMs(response.headers.get("retry-after")) ?? fallbackWait;
    // Read the body so the connection is reused; its text may name the problem (never a secret of ours).
    const text = await response.text().catch(() => "");
    if (!retriable || attempt >= maxRetries || wait > (options.maxRetryWaitMs ?? 60_000)) {
      const reason = /"message"\s*:\s*"([^"]{1,200})"/.exec(text)?.[1];
      throw vendorReportFailed(provider, `${url.pathname} answered ${response.status}${reason ? ` (${reason})` : ""}`, response.status);
    }
    await sleep(wait);
    fallbackWait *= 2;
  }
}

/**
 * Every page of an admin report, following `has_more` / `next_page` (sent back as `page`), each
 * read politely: a 429 or 5xx is retried after the vendor's `retry-after`.
 *
 * @example
 * for await (const page of reportPages("anthropic", url, { "x-api-key": adminKey })) buckets.push(...page.data);
 */
export async function* reportPages(
  provider: string,
  first: URL,
  headers: Record<string, string>,
  options: ReportFetchOptions = {},
): AsyncGenerator<ReportPage> {
  const url = new URL(first);
  const seen = new Set<string>();
  for (let count = 0; count < MAX_PAGES; count++) {
    const page = await pageOnce(provider, url, headers, options);
    yield page;
    if (!page.has_more || !page.next_page) return;
    if (seen.has(page.next_page)) throw vendorReportFailed(provider, `${url.pathname} repeated page token ${page.next_page.slice(0, 40)}`);
    seen.add(page.next_page);
    url.searchParams.set("page", page.next_page);
  }
  throw vendorReportFailed(provider, `${first.pathname} had more than ${MAX_PAGES} pages`);
}

/** The vendor's API origin: the provider's base URL without a trailing `/v1`, else the vendor's default. */
export function apiOrigin(baseURL: string | undefined, fallback: string): string {
  return (baseURL ?? fallback).replace(/\/+$/, "").replace(/\/v1$/, "");
}
