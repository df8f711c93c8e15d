import type { TokenValidator } from "@conduit-ai/auth";
import { toAuthenticatedUser } from "@conduit-ai/auth";
import { BaseAuthProvider, type ProviderOptions, type VerifiedToken } from "../base-provider.js";
import { readSettings, setting, settingsProblem } from "../config/settings-reader.js";
import { AuthProviderError, AuthenticationFailedError, ProviderInitializationError } from "../errors/auth-errors.js";

/** Settings of the `custom` type. */
export interface CustomProviderSettings {
  type?: "custom";
  /** Your check: the user (`AuthResult`) for a good token, `null`/`false` otherwise; may throw an auth error. */
  validate?: (token: string) => ReturnType<TokenValidator> | Promise<ReturnType<TokenValidator>>;
  /**
   * Config files: a module path (resolved from the working directory) whose `validate`
   * export (or default export) is the check. Loaded by `initialize()`.
   */
  module?: string;
}

/**
 * Your own token check behind the provider contract: sessions, RBAC, events and the request
 * flow come from the base provider.
 *
 * @example
 * const provider = createCustomProvider({ validate: async (token) => (await db.apiTokens.find(token))?.user ?? null });
 */
export class CustomProvider extends BaseAuthProvider {
  #validate: CustomProviderSettings["validate"];
  readonly #module: string | undefined;

  constructor(settings: CustomProviderSettings, options: ProviderOptions = {}) {
    super("custom", options);
    this.#validate = settings.validate;
    this.#module = settings.module;
  }

  override async initialize(): Promise<void> {
    if (this.#validate || !this.#module) return;
    const { pathToFileURL } = await import("node:url");
    const { resolve } = await import("node:path");
    let loaded: { validate?: unknown; default?: unknown };
    try {
      loaded = (await import(pathToFileURL(resolve(this.#module)).href)) as typeof loaded;
    } catch (error) {
      // The module is missing or throws while loading: the provider cannot start (the cause names why).
      throw new ProviderInitializationError(this.type, `Could not load the validator module ${this.#module}`, { cause: error });
    }
    const validate = loaded.validate ?? loaded.default;
    if (typeof validate !== "function") throw settingsProblem("custom", "auth.module", "the module exports no validate function");
    this.#validate = validate as CustomProviderSettings["validate"];
  }

  protected async verifyToken(token: string): Promise<VerifiedToken> {
    if (!this.#validate) await this.initialize();
    let result: unknown;
    try {
      result = await this.#validate?.(token);
    } catch (error) {
      if (AuthProviderError.isInstance(error)) throw error;
      throw new AuthenticationFailedError(this.type, "Invalid token", { cause: error, details: { reason: "invalid" } });
    }
    const user = toAuthenticatedUser(result as Parameters<typeof toAuthenticatedUser>[0]);
    // Refused by your validator: no more specific reason is known.
    if (!user) throw new AuthenticationFailedError(this.type, "Invalid token", { details: { reason: "invalid" } });
    return { user, claims: user.metadata ?? {} };
  }
}

/**
 * @example
 * createCustomProvider({ module: "./auth/validate-token.mjs" }); // config files
 */
export function createCustomProvider(settings: CustomProviderSettings, options: ProviderOptions = {}): CustomProvider {
  const checked = readSettings<CustomProviderSettings>("custom", settings, { validate: setting.function(), module: setting.string() });
  if (!checked.validate === !checked.module) throw settingsProblem("custom", "auth", "give exactly one of validate, module");
  return new CustomProvider(checked, options);
}
