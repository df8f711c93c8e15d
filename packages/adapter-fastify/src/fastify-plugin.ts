import { type MountOptions, type RegisteredRoute, mountedConfig, prepareMounted } from "@conduit-ai/server-core";
import { joinPaths, nativeRoutePath } from "@conduit-ai/server-core/node";
import type { FastifyInstance, HTTPMethods } from "fastify";
import fp from "fastify-plugin";
import { FALLBACK_METHODS, FastifyServerAdapter } from "./fastify-adapter.js";
import { takeOver, takeOverBeforeParsing } from "./fastify-takeover.js";

export interface ConduitPluginOptions extends MountOptions<FastifyServerAdapter> {
  /**
   * Where Conduit's routes sit (default `/`). A plugin wrapped by `fastify-plugin` shares its
   * parent's scope, where Fastify ignores the `prefix` register option: give it here.
   */
  prefix?: string;
}

declare module "fastify" {
  interface FastifyInstance {
    /** The Conduit server the plugin mounted (routes, middleware, status). */
    conduit: FastifyServerAdapter;
  }
}

/**
 * Mounts Conduit's routes as native routes of the user's own Fastify instance. Each takes the
 * request over before Fastify parses its body, so the core answers exactly as on the standalone
 * server (envelopes, middleware, errors, streams); other methods on Conduit's paths (OPTIONS,
 * 405) go to the core too, every other path stays the host's. `fastify.conduit` is the server
 * behind it; the host's `close()` drains its requests and streams first.
 */
async function mountConduit(fastify: FastifyInstance, options: ConduitPluginOptions): Promise<void> {
  const config = mountedConfig(options.config);
  const basePath = options.prefix ? joinPaths(options.prefix, config.basePath ?? "") : config.basePath;
  const conduit = prepareMounted(new FastifyServerAdapter(options.runtime, { ...config, basePath }), options);
  fastify.decorate("conduit", conduit);
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of conduit.listRoutes()) mountRoute(fastify, conduit, route, methodsByPath);
  for (const [url, methods] of methodsByPath) {
    const others = FALLBACK_METHODS.filter((method) => !methods.has(method) && !(method === "HEAD" && methods.has("GET")));
    if (others.length > 0)
      fastify.route({ method: others, url, preParsing: takeOverBeforeParsing(conduit.handler), handler: async () => undefined });
  }
  fastify.addHook("preClose", async () => {
    if (conduit.getLifecycleState() === "running") await conduit.stop();
  });
}

function mountRoute(
  fastify: FastifyInstance,
  conduit: FastifyServerAdapter,
  route: RegisteredRoute,
  methodsByPath: Map<string, Set<string>>,
): void {
  const url = nativeRoutePath(route.fullPath, "find-my-way");
  const methods = methodsByPath.get(url) ?? new Set<string>();
  methodsByPath.set(url, methods.add(route.method));
  if (route.method === "GET") {
    // Fastify never parses GET/HEAD bodies: the plain handler is the fast path.
    fastify.route({ method: "GET", url, handler: (request, reply) => takeOver(conduit.handler, request, reply, route) });
    return;
  }
  fastify.route({
    method: route.method as HTTPMethods,
    url,
    preParsing: takeOverBeforeParsing(conduit.handler, route),
    handler: async () => undefined,
  });
}

/**
 * Conduit as a Fastify plugin (via `fastify-plugin`, so `fastify.conduit` is visible to the host).
 *
 * @example
 * const app = Fastify();
 * await app.register(conduit, { runtime, prefix: "/ai" });
 * await app.listen({ port: 3000 }); // POST /ai/agent/stream
 */
export const conduit = fp(mountConduit, { fastify: "5.x", name: "@conduit-ai/adapter-fastify" });
