import type { CreateServerOptions, ServerAdapterConfig } from "../contracts/config.js";
import type { ServerFramework } from "../contracts/http.js";
import type { Runtime } from "../contracts/runtime.js";
import { resolveConfig, validateFramework } from "../config/resolve-config.js";
import { MissingDependencyError } from "../errors/server-errors.js";
import type { BaseServerAdapter } from "./base-adapter.js";

/** Adapter package and framework package(s) per framework. */
export const ADAPTER_PACKAGES: Record<ServerFramework, { adapter: string; framework: string[] }> = {
  hono: { adapter: "@conduit-ai/adapter-hono", framework: ["hono", "@hono/node-server"] },
  express: { adapter: "@conduit-ai/adapter-express", framework: ["express"] },
  fastify: { adapter: "@conduit-ai/adapter-fastify", framework: ["fastify"] },
  koa: { adapter: "@conduit-ai/adapter-koa", framework: ["koa"] },
};

/** What every adapter package exports. */
export interface AdapterModule {
  createAdapter(runtime: Runtime | undefined, config: ServerAdapterConfig): BaseServerAdapter<unknown>;
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

/**
 * Creates an adapter for one framework (default `hono`), loading only that adapter's
 * package. The config is validated up front.
 *
 * @example
 * const server = await createServer(runtime, { framework: "express", config: { port: 8080 } });
 * await server.start();
 */
export async function createServer(runtime: Runtime | undefined, options: CreateServerOptions = {}): Promise<BaseServerAdapter<unknown>> {
  const framework = validateFramework(options.framework ?? "hono");
  resolveConfig(options.config);
  const { adapter, framework: frameworkPackages } = ADAPTER_PACKAGES[framework];
  let module: AdapterModule;
  try {
    module = (await import(adapter)) as AdapterModule;
  } catch (error) {
    const missing = missingPackage(error);
    if (missing === adapter) throw new MissingDependencyError(adapter, { cause: error, packages: [adapter, ...frameworkPackages] });
    if (missing) throw new MissingDependencyError(missing, { cause: error });
    throw error;
  }
  return module.createAdapter(runtime, options.config ?? {});
}
