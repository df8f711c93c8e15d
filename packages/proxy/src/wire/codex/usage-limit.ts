import { retryHint } from "../../relay/final-status.js";
import { type ProxyReply, replyToResponse } from "../../relay/proxy-reply.js";

/** How long an account rests after `usage_limit_reached` when neither body nor headers name a reset. */
export const DEFAULT_USAGE_LIMIT_COOLDOWN_MS = 5 * 60_000;

interface CodexErrorBody {
  error?: { type?: unknown; code?: unknown; resets_at?: unknown; resets_in_seconds?: unknown };
}

/** The codex error body's `error.type` (or `code`), if the body is the codex error shape. */
export function codexErrorType(bodyText: string): { type: string | undefined; body: CodexErrorBody | undefined } {
  try {
    const body = JSON.parse(bodyText) as CodexErrorBody;
    const type = body?.error?.type ?? body?.error?.code;
    return { type: typeof type === "string" ? type : undefined, body };
  } catch {
    return { type: undefined, body: undefined };
  }
}

const positive = (value: unknown): number | undefined => {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) && number > 0 ? number : undefined;
};

/**
 * When a codex account's usage limit resets (epoch ms): the body's `resets_at` (epoch seconds) or
 * `resets_in_seconds`, else the `x-codex-{primary,secondary}-reset-at` / `-reset-after-seconds`
 * headers of the exhausted window (the later one when none says it is exhausted), else
 * `retry-after`. Undefined when nothing names a reset.
 */
export function usageLimitResetAt(body: CodexErrorBody | undefined, headers: Headers, now: number): number | undefined {
  const resetsAt = positive(body?.error?.resets_at);
  if (resetsAt !== undefined) return resetsAt * 1000;
  const resetsIn = positive(body?.error?.resets_in_seconds);
  if (resetsIn !== undefined) return now + resetsIn * 1000;
  const windows = ["primary", "secondary"].map((window) => {
    const at = positive(headers.get(`x-codex-${window}-reset-at`));
    const after = positive(headers.get(`x-codex-${window}-reset-after-seconds`));
    const used = positive(headers.get(`x-codex-${window}-used-percent`)) ?? 0;
    return { resetAt: at !== undefined ? at * 1000 : after !== undefined ? now + after * 1000 : undefined, exhausted: used >= 100 };
  });
  const known = windows.filter((window) => window.resetAt !== undefined);
  const exhausted = known.filter((window) => window.exhausted);
  const candidates = (exhausted.length > 0 ? exhausted : known).map((window) => window.resetAt as number);
  if (candidates.length > 0) return Math.max(...candidates);
  const retryAfter = positive(headers.get("retry-after"));
  return retryAfter === undefined ? undefined : now + retryAfter * 1000;
}

/** An error answer in the codex backend's shape (`{error:{type, message, …}}`). */
export function codexErrorReply(
  status: number,
  type: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): ProxyReply {
  return {
    status,
    headers: { "content-type": "application/json", ...retryHint(status), ...headers },
    body: Buffer.from(JSON.stringify({ error: { type, message, ...extra } })),
  };
}

/**
 * An error answer in the codex backend's shape as a WHATWG `Response`.
 *
 * @example
 * return codexError(401, "invalid_api_key", "A proxy client key is required");
 */
export function codexError(
  status: number,
  type: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return replyToResponse(codexErrorReply(status, type, message, extra, headers));
}
