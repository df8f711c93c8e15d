import type { ReachabilityReport } from "../health/provider-availability.js";
import { AuthProviderUnavailableError, AuthRateLimitError, ProviderAPIError } from "../errors/auth-errors.js";

/**
 * One JSON request to an identity provider, bounded by `timeoutMs`. No answer (refused, DNS,
 * timeout) or a 5xx → `AuthProviderUnavailableError` (503, naming the host server-side); 429 →
 * `AuthRateLimitError` (with its `Retry-After`); other failures → `ProviderAPIError`. The status
 * is returned for callers that give 401 a meaning of their own.
 */
export async function requestJson(
  provider: string,
  url: string,
  init: RequestInit & { timeoutMs: number; acceptStatus?: number[]; onReachability?: ReachabilityReport | undefined },
): Promise<{ status: number; body: unknown }> {
  const { timeoutMs, acceptStatus, onReachability, ...requestInit } = init;
  const host = new URL(url).host;
  let response: Response;
  try {
    response = await fetch(url, { ...requestInit, redirect: "error", signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    onReachability?.(false, host);
    throw new AuthProviderUnavailableError(provider, { host, cause: error });
  }
  onReachability?.(response.status < 500, host);
  if (acceptStatus?.includes(response.status)) {
    await response.body?.cancel();
    return { status: response.status, body: undefined };
  }
  if (response.status === 429) {
    const retryAfter = Number(response.headers.get("retry-after"));
    await response.body?.cancel();
    throw new AuthRateLimitError(
      provider,
      undefined,
      Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {},
    );
  }
  if (response.status >= 500) {
    await response.body?.cancel();
    throw new AuthProviderUnavailableError(provider, { host, details: { status: response.status } });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ProviderAPIError(provider, `Identity provider answered ${response.status} (${new URL(url).pathname})`, {
      details: { status: response.status },
    });
  }
  try {
    // An empty body (RFC 7009 revocation answers 200 with none) is no body, not bad JSON.
    const text = await response.text();
    return { status: response.status, body: text.trim() === "" ? undefined : JSON.parse(text) };
  } catch (error) {
    throw new ProviderAPIError(provider, "Identity provider answered with invalid JSON", { cause: error });
  }
}
