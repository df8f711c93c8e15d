import { AuthRateLimitError, ProviderAPIError } from "../errors/auth-errors.js";

/**
 * One JSON request to an identity provider, bounded by `timeoutMs`. 429 → `AuthRateLimitError`
 * (with its `Retry-After`), other failures → `ProviderAPIError`; the status is returned for
 * callers that give 401 a meaning of their own.
 */
export async function requestJson(
  provider: string,
  url: string,
  init: RequestInit & { timeoutMs: number; acceptStatus?: number[] },
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(init.timeoutMs) });
  } catch (error) {
    throw new ProviderAPIError(provider, `Identity provider unreachable (${new URL(url).host})`, { cause: error });
  }
  if (init.acceptStatus?.includes(response.status)) {
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
  if (!response.ok) {
    await response.body?.cancel();
    throw new ProviderAPIError(provider, `Identity provider answered ${response.status} (${new URL(url).pathname})`, {
      details: { status: response.status },
    });
  }
  try {
    return { status: response.status, body: await response.json() };
  } catch (error) {
    throw new ProviderAPIError(provider, "Identity provider answered with invalid JSON", { cause: error });
  }
}
