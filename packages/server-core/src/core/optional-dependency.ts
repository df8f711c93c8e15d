import { createRequire } from "node:module";
import { MissingDependencyError } from "../errors/server-errors.js";

/**
 * Loads the heavy parts of the core (pino, prom-client, yaml, swagger-ui-dist) on first use
 * instead of at `import`, so a consumer pays for them only when the feature that needs them
 * is on. `require` keeps the APIs that use them synchronous; all are CommonJS on Node.
 */
const requireFromCore = createRequire(import.meta.url);

/** True when `error` says `name` itself (not one of its own dependencies) is not installed. */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") return false;
  return new RegExp(`Cannot find (?:module|package) '${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(?:/[^']*)?'`).test((error as Error).message);
}

/**
 * `require(name)` from server-core, or `MissingDependencyError` naming the install line when the
 * package is absent (`feature` says what needs it).
 *
 * @example
 * const { stringify } = loadOptionalDependency<typeof import("yaml")>("yaml", "the docs routes");
 */
export function loadOptionalDependency<T>(name: string, feature: string): T {
  try {
    return requireFromCore(name) as T;
  } catch (error) {
    if (isMissingPackage(error, name)) throw new MissingDependencyError(name, { cause: error, feature });
    throw error;
  }
}

/** The folder of an installed package (found through its `package.json`), or `MissingDependencyError`. */
export function optionalDependencyDirectory(name: string, feature: string): string {
  try {
    return requireFromCore.resolve(`${name}/package.json`).replace(/[\\/]package\.json$/, "");
  } catch (error) {
    if (isMissingPackage(error, name)) throw new MissingDependencyError(name, { cause: error, feature });
    throw error;
  }
}
