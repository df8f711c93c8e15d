import type { BaseAuthProvider, ProviderOptions } from "../base-provider.js";
import { AuthProviderError } from "../errors/auth-errors.js";
import { AuthLookupCode, AuthLookupError } from "../errors/registry-errors.js";
import type { AuthCapability, ProviderHealth } from "../types.js";
import {
  type AuthProviderDefinition,
  type BuiltinProviderName,
  type BuiltinProviderSettings,
  type CanonicalProviderType,
  builtinProviderDefinitions,
} from "./provider-definitions.js";

/**
 * A provider config: its type (or an alias) and that type's settings. A built-in name takes
 * exactly its type's settings, so a misspelt key fails type-checking
 * (`{ type: "jwt", isuer }`); a type you registered yourself takes any settings.
 *
 * @example
 * const config: AuthProviderConfig<"oidc"> = { type: "oidc", issuer: "https://login.example.com", clientId: "api" };
 */
export type AuthProviderConfig<Type extends string = string> = { type: Type } & (Type extends BuiltinProviderName
  ? BuiltinProviderSettings<CanonicalProviderType<Type>>
  : { [setting: string]: unknown });

/** Any built-in provider's config, discriminated by `type`. */
export type BuiltinProviderConfig = { [Name in BuiltinProviderName]: AuthProviderConfig<Name> }[BuiltinProviderName];

/**
 * Provider types by canonical name and alias, listed by capability, with the factory that
 * resolves aliases before creating and health checks cached per provider instance.
 *
 * @example
 * const registry = new AuthProviderRegistry();
 * registry.get("oidc").type;                            // "oauth2"
 * registry.listByCapability("token-introspection");     // [oauth2 definition]
 * const provider = registry.create({ type: "keycloak", url, realm: "demo" });
 * await registry.healthCheck(provider);                 // cached for healthCacheTtlMs
 */
export class AuthProviderRegistry {
  readonly #definitions = new Map<string, AuthProviderDefinition>();
  readonly #aliases = new Map<string, string>();
  readonly #health = new WeakMap<BaseAuthProvider, { until: number; result: Promise<ProviderHealth> }>();
  readonly healthCacheTtlMs: number;

  constructor(
    definitions: Iterable<AuthProviderDefinition> = Object.values(builtinProviderDefinitions),
    options: { healthCacheTtlMs?: number } = {},
  ) {
    this.healthCacheTtlMs = options.healthCacheTtlMs ?? 30_000;
    for (const definition of definitions) this.register(definition);
  }

  /** Adds a provider type; its name and aliases must be new (`AUTH_REGISTRY-002`). */
  register(definition: AuthProviderDefinition): this {
    if (typeof definition?.type !== "string" || definition.type === "" || typeof definition.create !== "function") {
      throw new AuthLookupError(AuthLookupCode.REGISTRY_INVALID_DEFINITION, "A provider definition needs a type and a create function");
    }
    const names = [definition.type, ...definition.aliases].map((name) => name.toLowerCase());
    const taken = names.find((name) => this.#aliases.has(name));
    if (taken)
      throw new AuthLookupError(AuthLookupCode.REGISTRY_DUPLICATE, `Auth provider name "${taken}" is already registered`, { name: taken });
    this.#definitions.set(definition.type, definition);
    for (const name of names) this.#aliases.set(name, definition.type);
    return this;
  }

  unregister(nameOrAlias: string): boolean {
    const type = this.resolveType(nameOrAlias);
    if (!type) return false;
    this.#definitions.delete(type);
    for (const [alias, target] of this.#aliases) if (target === type) this.#aliases.delete(alias);
    return true;
  }

  /** The canonical type of a name or alias (case-insensitive), or undefined. */
  resolveType(nameOrAlias: string): string | undefined {
    return typeof nameOrAlias === "string" ? this.#aliases.get(nameOrAlias.toLowerCase()) : undefined;
  }

  has(nameOrAlias: string): boolean {
    return this.resolveType(nameOrAlias) !== undefined;
  }

  /** The definition of a name or alias; `AUTH_REGISTRY-001` when unknown. */
  get(nameOrAlias: string): AuthProviderDefinition {
    const type = this.resolveType(nameOrAlias);
    const definition = type === undefined ? undefined : this.#definitions.get(type);
    if (!definition) {
      throw new AuthLookupError(
        AuthLookupCode.REGISTRY_NOT_FOUND,
        `No auth provider type "${String(nameOrAlias)}" (known: ${this.types().join(", ")})`,
        { name: nameOrAlias, known: this.types() },
      );
    }
    return definition;
  }

  list(): AuthProviderDefinition[] {
    return [...this.#definitions.values()];
  }

  types(): string[] {
    return [...this.#definitions.keys()];
  }

  /** Types offering `capability` (e.g. `jwt-validation`, `session-management`, `sso`). */
  listByCapability(capability: AuthCapability | string): AuthProviderDefinition[] {
    return this.list().filter((definition) => definition.capabilities.includes(capability as AuthCapability));
  }

  /**
   * Creates a provider from `{type, ...settings}`, aliases resolved first. Unknown type →
   * `AUTH_FACTORY-001`; no type → `AUTH_FACTORY-002`; settings refused → the provider's
   * `InvalidConfigurationError` (naming each bad key); any other failure → `AUTH_FACTORY-003`.
   */
  create<Type extends string>(config: AuthProviderConfig<Type>, options: ProviderOptions = {}): BaseAuthProvider {
    if (typeof config !== "object" || config === null || typeof config.type !== "string" || config.type === "") {
      throw new AuthLookupError(AuthLookupCode.FACTORY_INVALID_CONFIG, 'An auth provider config needs a string "type"');
    }
    const type = this.resolveType(config.type);
    const definition = type === undefined ? undefined : this.#definitions.get(type);
    if (!definition) {
      throw new AuthLookupError(
        AuthLookupCode.FACTORY_NOT_FOUND,
        `Unknown auth provider type "${config.type}" (known: ${this.types().join(", ")})`,
        { type: config.type, known: this.types() },
      );
    }
    const { type: _alias, ...settings } = config;
    try {
      return definition.create(settings, options);
    } catch (error) {
      if (AuthProviderError.isInstance(error) || AuthLookupError.isInstance(error)) throw error;
      throw new AuthLookupError(
        AuthLookupCode.FACTORY_CREATE_FAILED,
        `Creating the ${definition.type} auth provider failed: ${(error as Error).message}`,
        { type: definition.type },
        error,
      );
    }
  }

  /** The provider's health, cached for `healthCacheTtlMs` (concurrent callers share one check). */
  healthCheck(provider: BaseAuthProvider, options: { fresh?: boolean } = {}): Promise<ProviderHealth> {
    const cached = this.#health.get(provider);
    if (cached && !options.fresh && cached.until > Date.now()) return cached.result;
    const result = provider.healthCheck();
    this.#health.set(provider, { until: Date.now() + this.healthCacheTtlMs, result });
    return result;
  }
}

/** The registry of the eleven built-in types. */
export const authProviderRegistry = new AuthProviderRegistry();

/**
 * Creates a provider of any registered type or alias from one config object.
 *
 * @example
 * const provider = createAuthProvider({ type: "oidc", issuer: "https://login.example.com", clientId, clientSecret });
 */
export function createAuthProvider<Type extends string>(config: AuthProviderConfig<Type>, options: ProviderOptions = {}): BaseAuthProvider {
  return authProviderRegistry.create(config, options);
}
