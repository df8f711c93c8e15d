import { type RuntimeCallContext, importOptionalDependency } from "@conduit-ai/server-core";
import { within } from "@conduit-ai/server-core/internal";

/** The part of an `@conduit-ai/auth-providers` provider the runtime needs. */
export interface RuntimeTokenProvider {
  readonly type: string;
  authenticateToken(token: string): Promise<
    | {
        valid: true;
        user: { id: string; email?: string; roles: string[]; permissions: string[]; name?: string; metadata?: Record<string, unknown> };
      }
    | { valid: false; error: Error }
  >;
  initialize?(): Promise<void>;
  cleanup?(): Promise<void>;
}

/** `RuntimeOptions.auth`: a provider config (`{type: "jwt", ...}`), created on first use, or a provider you built. */
export type RuntimeAuthOption = { type: string; [setting: string]: unknown } | RuntimeTokenProvider;

/** The spec's limit on one token check. */
export const TOKEN_VALIDATION_TIMEOUT_MS = 5000;

const isProvider = (value: RuntimeAuthOption): value is RuntimeTokenProvider =>
  typeof (value as RuntimeTokenProvider).authenticateToken === "function";

type AuthProvidersModule = typeof import("@conduit-ai/auth-providers");

function loadAuthProviders(): Promise<AuthProvidersModule> {
  return importOptionalDependency("@conduit-ai/auth-providers", () => import("@conduit-ai/auth-providers"), {
    feature: "call-token auth (auth.provider)",
  });
}

/**
 * Per-call token validation (docs/spec.md "Per-call token validation in the runtime"): when a call
 * carries `authToken`, the provider is created on first use from the pending config, the
 * token is checked within 5 s, a refusal raises `InvalidTokenError` naming the provider type,
 * and the token's user (`userId`, `userEmail`, `userRoles`, `user`) overrides the caller's context.
 *
 * @example
 * const auth = new CallTokenAuth({ type: "jwt", jwksUrl, issuer });
 * const context = await auth.apply({ authToken: token, requestId: "r1" });
 * context.userId; // the token's subject
 */
export class CallTokenAuth {
  #provider: Promise<RuntimeTokenProvider> | undefined;
  readonly #pending: RuntimeAuthOption | undefined;
  readonly #timeoutMs: number;

  constructor(option: RuntimeAuthOption | undefined, timeoutMs = TOKEN_VALIDATION_TIMEOUT_MS) {
    this.#pending = option;
    this.#timeoutMs = timeoutMs;
  }

  #providerOf(option: RuntimeAuthOption): Promise<RuntimeTokenProvider> {
    this.#provider ??= (async () => {
      if (isProvider(option)) return option;
      const { createAuthProvider } = await loadAuthProviders();
      // Per-call checks need no sessions: the HTTP layer (or the caller) owns those.
      const provider = createAuthProvider(option, { sessions: false });
      await provider.initialize?.();
      return provider;
    })().catch((error) => {
      this.#provider = undefined;
      throw error;
    });
    return this.#provider;
  }

  /** The context with the token's identity merged in; unchanged when the call carries no token or no auth is configured. */
  async apply(context: RuntimeCallContext): Promise<RuntimeCallContext> {
    const token = context.authToken;
    if (token === undefined || this.#pending === undefined) return context;
    const provider = await this.#providerOf(this.#pending);
    const { InvalidTokenError } = await loadAuthProviders();
    let result: Awaited<ReturnType<RuntimeTokenProvider["authenticateToken"]>> | "timeout";
    try {
      result = await within(provider.authenticateToken(token), this.#timeoutMs);
    } catch (error) {
      throw new InvalidTokenError(provider.type, "Token validation failed", { cause: error });
    }
    if (result === "timeout")
      throw new InvalidTokenError(provider.type, `Token validation timed out after ${this.#timeoutMs} ms`, {
        details: { reason: "timeout" },
      });
    if (!result.valid)
      throw new InvalidTokenError(provider.type, result.error.message, {
        cause: result.error,
        details: { reason: (result.error as { code?: string }).code ?? "invalid" },
      });
    const { user } = result;
    return {
      ...context,
      user: {
        id: user.id,
        roles: user.roles,
        permissions: user.permissions,
        ...(user.email === undefined ? {} : { email: user.email }),
        ...(user.name === undefined ? {} : { name: user.name }),
      },
      userId: user.id,
      ...(user.email === undefined ? { userEmail: undefined } : { userEmail: user.email }),
      userRoles: user.roles,
    };
  }

  async close(): Promise<void> {
    const provider = await this.#provider?.catch(() => undefined);
    if (provider && !isProvider(this.#pending as RuntimeAuthOption)) await provider.cleanup?.();
  }
}
