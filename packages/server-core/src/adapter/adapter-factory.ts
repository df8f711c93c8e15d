import type { ServerAdapterConfig } from "../contracts/config.js";
import type { Runtime } from "../contracts/runtime.js";
import type { AdapterOptions, BaseServerAdapter } from "./base-adapter.js";

/** An adapter class, as `createAdapterFactory` takes it. */
export type AdapterClass<TAdapter extends BaseServerAdapter<unknown>> = new (
  runtime: Runtime | undefined,
  config?: ServerAdapterConfig,
  options?: AdapterOptions,
) => TAdapter;

/** The `createAdapter` every adapter package exports (the entry `createServer` loads). */
export type AdapterFactory<TAdapter extends BaseServerAdapter<unknown>> = (
  runtime: Runtime | undefined,
  config?: ServerAdapterConfig,
  options?: AdapterOptions,
) => TAdapter;

/**
 * The `createAdapter` entry of an adapter package: `createServer` loads it; `options.defaultMiddleware:
 * false` skips the default stack.
 *
 * @example
 * export const createAdapter = createAdapterFactory(KoaServerAdapter);
 * const server = createAdapter(runtime, { port: 3000 });
 */
export function createAdapterFactory<TAdapter extends BaseServerAdapter<unknown>>(
  Adapter: AdapterClass<TAdapter>,
): AdapterFactory<TAdapter> {
  return (runtime, config = {}, options = {}) => new Adapter(runtime, config, options);
}
