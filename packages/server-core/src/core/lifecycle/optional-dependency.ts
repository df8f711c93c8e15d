import { createRequire } from "node:module";
import { MissingDependencyError } from "../../errors/server-errors.js";

/**
 * Loads heavy or optional packages (pino, yaml, ioredis…) on first use instead of
 * at `import`, so a consumer pays for them only when the feature that needs them is on.
 * `require` keeps the APIs that use them synchronous; all of them are CommonJS on Node.
 */
const requires = new Map<string, NodeJS.Require>();

function requireFrom(parentUrl: string): NodeJS.Require {
  let found = requires.get(parentUrl);
  if (found === undefined) {
    found = createRequire(parentUrl);
    requires.set(parentUrl, found);
  }
  return found;
}

/** True when `error` says `name` itself (not one of its own dependencies) is not installed. */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") return false;
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return new RegExp(`Cannot find (?:module|package) '${escaped}(?:/[^']*)?'`).test((error as Error).message);
}

export interface OptionalDependencyOptions {
  /** What needs the package, for the error message (e.g. `"request logging (logging.enabled)"`). */
  feature: string;
  /** The module resolving it (`import.meta.url` of the package that declares it); default server-core. */
  from?: string;
}

/**
 * `require(name)` resolved from `options.from`, or `MissingDependencyError` naming the install
 * line for the package manager in use when the package is absent.
 *
 * @example
 * const { Redis } = loadOptionalDependency<typeof import("ioredis")>("ioredis", { feature: "Redis memory", from: import.meta.url });
 */
export function loadOptionalDependency<T>(name: string, options: OptionalDependencyOptions): T {
  try {
    return requireFrom(options.from ?? import.meta.url)(name) as T;
  } catch (error) {
    if (isMissingPackage(error, name)) throw new MissingDependencyError(name, { cause: error, feature: options.feature });
    throw error;
  }
}

/**
 * `await load()` — the caller's own `import("name")`, so the package resolves from the caller —
 * or `MissingDependencyError` (install line, feature, the import failure as `cause`) when `name`
 * itself is not installed. Any other failure (the package is there but broken, or one of its own
 * dependencies is missing) is rethrown as it is: its real cause must not hide behind "missing".
 *
 * @example
 * const providers = await importOptionalDependency("@conduit-ai/auth-providers", () => import("@conduit-ai/auth-providers"), {
 *   feature: "auth providers (auth.type)",
 * });
 */
export async function importOptionalDependency<T>(
  name: string,
  load: () => Promise<T>,
  options: Omit<OptionalDependencyOptions, "from">,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, name)) throw new MissingDependencyError(name, { cause: error, feature: options.feature });
    throw error;
  }
}

/** The folder of an installed package (found through its `package.json`), or `MissingDependencyError`. */
export function optionalDependencyDirectory(name: string, options: OptionalDependencyOptions): string {
  try {
    return requireFrom(options.from ?? import.meta.url)
      .resolve(`${name}/package.json`)
      .replace(/[\\/]package\.json$/, "");
  } catch (error) {
    if (isMissingPackage(error, name)) throw new MissingDependencyError(name, { cause: error, feature: options.feature });
    throw error;
  }
}

/**
 * Raises one `MissingDependencyError` listing every package of `names` that is not installed
 * (one install line for all of them), so a feature needing several fails once, up front.
 *
 * @example
 * requireInstalled(["swagger-ui-dist", "yaml"], { feature: "the API docs routes (enableSwagger)" });
 */
export function requireInstalled(names: string[], options: OptionalDependencyOptions): void {
  const missing = names.filter((name) => {
    try {
      requireFrom(options.from ?? import.meta.url).resolve(`${name}/package.json`);
      return false;
    } catch (error) {
      if (isMissingPackage(error, name)) return true;
      throw error;
    }
  });
  const [first] = missing;
  if (first !== undefined) throw new MissingDependencyError(first, { packages: missing, feature: options.feature });
}
