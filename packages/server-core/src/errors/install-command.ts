/** Package managers whose install line a `MissingDependencyError` can phrase. */
export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

/**
 * The package manager that started this process, from the `npm_config_user_agent` every one of
 * them sets for scripts (`pnpm/10.1.0 npm/? node/v20…`, `yarn/4.5.0 …`, `bun/1.2.0 …`,
 * `npm/10.9.0 …`); npm when the process was started some other way (`node server.js`).
 *
 * @example
 * detectPackageManager("pnpm/10.34.8 npm/? node/v20.20.2 linux x64"); // "pnpm"
 */
export function detectPackageManager(userAgent: string | undefined = globalThis.process?.env?.npm_config_user_agent): PackageManager {
  const name = /^(npm|pnpm|yarn|bun)\//.exec(userAgent ?? "")?.[1];
  return (name as PackageManager | undefined) ?? "npm";
}

/**
 * The command that adds `packages` with `manager`.
 *
 * @example
 * installCommand(["@conduit-ai/adapter-koa", "koa"], "yarn"); // "yarn add @conduit-ai/adapter-koa koa"
 */
export function installCommand(packages: string[], manager: PackageManager = detectPackageManager()): string {
  const verb = manager === "npm" ? "npm install" : `${manager} add`;
  return `${verb} ${packages.join(" ")}`;
}
