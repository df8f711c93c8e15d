import type { EventEmitter } from "node:events";
import type { RequiredServerAdapterConfig } from "./config.js";
import type { ServerFramework } from "./http.js";
import type { ServerLifecycleState, ServerStatus } from "./lifecycle.js";
import type { MiddlewareDefinition } from "./middleware.js";
import type { RegisteredRoute, RouteDefinition, RouteGroup, RouteSchemas } from "./route.js";
import type { Runtime } from "./runtime.js";

/** The public face of every adapter; identical behavior on all four frameworks. */
export interface ServerAdapter<TFramework = unknown> extends EventEmitter {
  readonly framework: ServerFramework;
  /** The runtime the route groups serve (undefined for a bare server). */
  readonly runtime: Runtime | undefined;
  initialize(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** `ctx.params` is typed from the path literal (`"/users/:id"` → `ctx.params.id: string`) unless a params schema says otherwise. */
  registerRoute<S extends RouteSchemas | undefined = undefined, P extends string = string>(route: RouteDefinition<S, P>): void;
  registerRouteGroup(group: RouteGroup): void;
  registerMiddleware(middleware: MiddlewareDefinition): void;
  getStatus(): ServerStatus;
  listRoutes(): RegisteredRoute[];
  getConfig(): RequiredServerAdapterConfig;
  getLifecycleState(): ServerLifecycleState;
  getActiveConnectionCount(): number;
  /** The real framework app, usable for native routes and middleware. */
  getFrameworkInstance(): TFramework;
  /** The bound address once running (port resolved when 0 was asked for). */
  address(): { port: number; host: string } | undefined;
}
