import type { CreateServerOptions, ServerAdapterConfig } from "../contracts/config.js";
import type { FrameworkAppOf } from "../contracts/frameworks.js";
import type { ServerFramework } from "../contracts/http.js";
import type { Runtime } from "../contracts/runtime.js";
import { resolveConfig, validateFramework } from "../config/resolve-config.js";
import { ConfigurationError, MissingDependencyError } from "../errors/server-errors.js";
import type { AdapterFactory } from "./adapter-factory.js";
import type { BaseServerAdapter } from "./base-adapter.js";

/** Adapter package and framework package(s) per framework. */
export const ADAPTER_PACKAGES: Record<ServerFramework, { adapter: string; framework: string[] }> = {
  hono: { adapter: "@conduit-ai/adapter-hono", framework: ["hono", "@hono/node-server"] },
  express: { adapter: "@conduit-ai/adapter-express", framework: ["express"] },
  fastify: { adapter: "@conduit-ai/adapter-fastify", framework: ["fastify"] },
  koa: { adapter: "@conduit-ai/adapter-koa", framework: ["koa"] },
};

/** What every adapter package exports. */
export interface AdapterModule<TAdapter extends BaseServerAdapter<unknown> = BaseServerAdapter<unknown>> {
  createAdapter: AdapterFactory<TAdapter>;
}

/** `createServer` with an adapter imported statically (so bundlers include it): `{adapter: hono}`. */
export interface CreateServerWithAdapterOptions<TAdapter extends BaseServerAdapter<unknown>> {
  adapter: AdapterModule<TAdapter>;
  config?: ServerAdapterConfig;
  /** Optional; checked against the adapter's own framework. */
  framework?: ServerFramework;
}

function missingPackage(error: unknown): string | undefined {
  const code = (error as { code?: string }).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return undefined;
  const found = /Cannot find (?:package|module) '([^']+)'/.exec((error as Error).message);
  if (!found?.[1]) return undefined;
  // Node reports a path for packages found but broken; keep only bare package names.
  const name = found[1];
  const scoped = name.startsWith("@") ? name.split("/").slice(0, 2).join("/") : name.split("/")[0];
  return scoped?.startsWith(".") || scoped?.startsWith("/") ? undefined : scoped;
}

async function loadAdapterModule(framework: ServerFramework): Promise<AdapterModule> {
  const { adapter, framework: frameworkPackages } = ADAPTER_PACKAGES[framework];
  try {
    return (await import(adapter)) as AdapterModule;
  } catch (error) {
    const missing = missingPackage(error);
    if (missing === adapter) throw new MissingDependencyError(adapter, { cause: error, packages: [adapter, ...frameworkPackages] });
    if (missing) throw new MissingDependencyError(missing, { cause: error });
    throw error;
  }
}

/**
 * Creates an adapter for one framework (default `hono`), loading only that adapter's
 * package — or the adapter module given statically as `adapter`, which bundlers then include.
 * The config is validated up front. The result's `getFrameworkInstance()` is typed as the
 * framework's own app (`Hono`, `Express`, `FastifyInstance`, `Koa`) once the adapter's types
 * are loaded (see `FrameworkApps`).
 *
 * @example
 * const server = await createServer(runtime, { framework: "express", config: { port: 8080 } });
 * await server.start();
 *
 * @example
 * import * as hono from "@conduit-ai/adapter-hono";
 * const bundled = await createServer(runtime, { adapter: hono });
 */
export function createServer<TAdapter extends BaseServerAdapter<unknown>>(
  runtime: Runtime | undefined,
  options: CreateServerWithAdapterOptions<TAdapter>,
): Promise<TAdapter>;
export function createServer<TFramework extends ServerFramework = "hono">(
  runtime: Runtime | undefined,
  options?: CreateServerOptions<TFramework>,
): Promise<BaseServerAdapter<FrameworkAppOf<TFramework>>>;
export async function createServer(
  runtime: Runtime | undefined,
  options: CreateServerOptions | CreateServerWithAdapterOptions<BaseServerAdapter<unknown>> = {},
): Promise<BaseServerAdapter<unknown>> {
  const given = "adapter" in options ? options.adapter : undefined;
  if ("adapter" in options && typeof given?.createAdapter !== "function") {
    throw new ConfigurationError('createServer: `adapter` must be an adapter module (import * as hono from "@conduit-ai/adapter-hono")');
  }
  const framework = options.framework === undefined ? undefined : validateFramework(options.framework);
  resolveConfig(options.config);
  const module = given ?? (await loadAdapterModule(framework ?? "hono"));
  const adapter = module.createAdapter(runtime, options.config ?? {});
  if (framework !== undefined && adapter.framework !== framework) {
    throw new ConfigurationError(`createServer: framework "${framework}" does not match the adapter given (${adapter.framework})`);
  }
  return adapter;
}
